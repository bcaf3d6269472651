package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture is a Codex rollout in the format of
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (codex-rs/protocol's
// RolloutLine): the injected AGENTS.md and environment context, a claim
// through exec_command, apply_patch edits (one that does not apply), the
// shell tool's structured output, shell_command's freeform output with a
// pytest failure, a unified exec command finished through write_stdin, a
// local_shell_call that closes the task, a push that leaks a token, and a
// local compaction.
func TestReadCodexRollout(t *testing.T) {
	t.Parallel()
	tok := githubToken(t)
	push := "remote: Invalid username or token. Password authentication is not supported for Git operations.\n" +
		"fatal: Authentication failed for 'https://x-access-token:" + tok + "@github.com/acme/app.git/'"
	goFail := "--- FAIL: TestSplitRowsNoTrailingNewline (0.00s)\n    csv_newline_test.go:7: got 1 rows, want 2\nFAIL\n" +
		"FAIL\tgithub.com/acme/app/internal/export\t0.014s\nok  \tgithub.com/acme/app/internal/ledger\t0.011s\nFAIL"
	pyFail := ".F\n=================================== FAILURES ===================================\n" +
		"______________________________ test_roundtrip ______________________________\n" +
		"    def test_roundtrip():\n>       assert export.rows(\"a,b\\nc,d\") == [[\"a\", \"b\"], [\"c\", \"d\"]]\n" +
		"E       AssertionError: assert [['a', 'b']] == [['a', 'b'], ['c', 'd']]\n\n" +
		"scripts/tests/test_export.py:9: AssertionError\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED scripts/tests/test_export.py::test_roundtrip - AssertionError: assert [['a', 'b']] == [['a', 'b'], ['c', 'd']]\n" +
		"1 failed, 1 passed in 0.12s"
	final := "Fixed splitRows so the CSV export keeps the last row without a trailing newline; " +
		"TestSplitRowsNoTrailingNewline covers it and go test ./... passes. app-7c1 is closed. " +
		"git push was rejected (invalid token), so the commit is local only."
	s, err := Read(context.Background(), fixture(t, "codex-rollout.jsonl"), RuntimeCodex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, s, &Session{
		Runtime:   RuntimeCodex,
		SessionID: "019ab3c4-7d2e-7f10-8a4b-3c5d6e7f8091",
		Model:     "gpt-5.5",
		Cwd:       "/home/dev/app",
		Started:   mustTime(t, "2026-11-23T11:00:00Z"),
		Ended:     mustTime(t, "2026-11-23T11:00:50.65Z"),
		FirstUserText: "The CSV export drops the last row when the input has no trailing newline. " +
			"Fix internal/export/csv.go, add a test, then close app-7c1.",
		LastAssistantText: final,
		FilesChanged:      []string{"internal/export/csv.go", "internal/export/csv_newline_test.go"},
		Commands: []Command{
			{Cmd: "memctl update app-7c1 --claim", ExitCode: 0, Output: "✓ Updated issue: app-7c1 (in_progress, assignee dev)"},
			{Cmd: "go test ./...", ExitCode: 1, Output: goFail},
			{Cmd: "python -m pytest -q scripts/tests/test_export.py", ExitCode: 1, Output: pyFail},
			{Cmd: "go test -v ./internal/export", ExitCode: 0,
				Output: "=== RUN   TestSplitRowsNoTrailingNewline\n--- PASS: TestSplitRowsNoTrailingNewline (0.00s)\n" +
					"=== RUN   TestSplitRowsHeader\n--- PASS: TestSplitRowsHeader (0.00s)\nPASS\nok  \tgithub.com/acme/app/internal/export\t0.013s"},
			{Cmd: `go test ./... && memctl close app-7c1 --reason "last row kept"`, ExitCode: 0,
				Output: "ok  \tgithub.com/acme/app/internal/export\t0.012s\nok  \tgithub.com/acme/app/internal/ledger\t0.010s\n✓ Closed app-7c1: last row kept"},
			{Cmd: "git push origin main", ExitCode: 128, Output: push},
		},
		Tests: []Test{
			{Name: "TestSplitRowsNoTrailingNewline", Status: "pass"},
			{Name: "scripts/tests/test_export.py::test_roundtrip", Status: "fail"},
			{Name: "TestSplitRowsHeader", Status: "pass"},
		},
		Errors: []string{
			"apply_patch verification failed: Failed to find expected lines in /home/dev/app/internal/export/export.go:\nfunc splitRows(",
			goFail,
			pyFail,
			push,
		},
		TaskClaims:     []string{"app-7c1"},
		TaskCloses:     []string{"app-7c1"},
		CompactSummary: "The user asked to fix the CSV export dropping the last row; csv.go was fixed and tested, app-7c1 closed; git push failed with an invalid token.",
	})
}

// Codex's older rollouts have no turn_context model and keep function
// output as content items; the shell tool's argv is shown as one line.
func TestReadCodexShellForms(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"timestamp":"2026-11-23T08:00:00Z","type":"session_meta","payload":{"id":"s9","timestamp":"2026-11-23T08:00:00Z","cwd":"/w","originator":"codex_exec","cli_version":"0.46.0","instructions":null}}`,
		`{"timestamp":"2026-11-23T08:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cargo\",\"test\",\"--\",\"it's\"]}","call_id":"c1"}}`,
		`{"timestamp":"2026-11-23T08:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"Exit code: 101\nWall time: 3.2 seconds\nOutput:\ntest parse::tests::empty ... ok\ntest parse::tests::trailing ... FAILED\ntest parse::tests::slow ... ignored\ntest result: FAILED. 1 passed; 1 failed; 1 ignored"}]}}`,
		`{"timestamp":"2026-11-23T08:00:03Z","type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n*** Delete File: old.rs\\n*** Update File: src/a.rs\\n*** Move to: src/b.rs\\n@@\\n-x\\n+y\\n*** End Patch\"}","call_id":"c2"}}`,
		`{"timestamp":"2026-11-23T08:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"output\":\"Success. Updated the following files:\\nD old.rs\\nM src/b.rs\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}`,
		`{"timestamp":"2026-11-23T08:00:05Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: notes.md\\n+hi\\n*** End Patch\\nEOF\"]}","call_id":"c3"}}`,
		`{"timestamp":"2026-11-23T08:00:06Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"{\"output\":\"Success. Updated the following files:\\nA notes.md\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(context.Background(), path, RuntimeCodex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, &Session{Commands: s.Commands, Tests: s.Tests, FilesChanged: s.FilesChanged, Model: s.Model}, &Session{
		Commands: []Command{{Cmd: `cargo test -- 'it'\''s'`, ExitCode: 101,
			Output: "test parse::tests::empty ... ok\ntest parse::tests::trailing ... FAILED\ntest parse::tests::slow ... ignored\ntest result: FAILED. 1 passed; 1 failed; 1 ignored"}},
		Tests: []Test{
			{Name: "parse::tests::empty", Status: "pass"},
			{Name: "parse::tests::trailing", Status: "fail"},
			{Name: "parse::tests::slow", Status: "skip"},
		},
		FilesChanged: []string{"old.rs", "src/a.rs", "src/b.rs", "notes.md"},
	})
}
