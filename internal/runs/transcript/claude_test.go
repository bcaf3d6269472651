package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture is a Claude Code session in the format of the files under
// ~/.claude/projects (version 2.1): a /clear with its caveat, a request
// behind an IDE system reminder, a claim, a claim that fails, a subagent
// (sidechain), an edit that fails, a new test file, a failing then a
// passing go test, a push that leaks a token into its error, the closes
// and a synthetic reply after an interrupt.
func TestReadClaudeCodeSession(t *testing.T) {
	t.Parallel()
	tok := githubToken(t)
	push := "remote: Invalid username or token. Password authentication is not supported for Git operations.\n" +
		"fatal: Authentication failed for 'https://x-access-token:" + tok + "@github.com/acme/app.git/'"
	goFail := "--- FAIL: TestParseNoTrailingNewline (0.00s)\n    parse_newline_test.go:8: got 1 facts, want 2\nFAIL\n" +
		"FAIL\tgithub.com/acme/app/internal/ledger\t0.012s\nok  \tgithub.com/acme/app/internal/tasks\t0.031s\nFAIL"
	notFound := "memctl: error: task \"app-zz9\" not found\nmemctl: hint: run \"memctl list\" to see task ids"
	s, err := Read(context.Background(), fixture(t, "claude-session.jsonl"), RuntimeClaudeCode, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, s, &Session{
		Runtime:   RuntimeClaudeCode,
		SessionID: "5b0c2f1e-8d3a-4c7e-9f21-6a4d0e7b9c13",
		Model:     "claude-opus-4-5-20251101",
		Cwd:       "/home/dev/app",
		Started:   mustTime(t, "2026-11-23T10:00:00Z"),
		Ended:     mustTime(t, "2026-11-23T10:01:21.997Z"),
		FirstUserText: "The ledger parser drops the last fact when a facts file has no trailing newline. " +
			"Fix it in internal/ledger/parse.go, add a regression test, and close app-3f2 when go test passes.",
		LastAssistantText: "Fixed: parseFacts now keeps the last fact when a facts file has no trailing newline, " +
			"and TestParseNoTrailingNewline pins it. go test ./... passes; app-3f2 is closed. " +
			"The push failed: the GITHUB_TOKEN in this shell is rejected, so push from your terminal.",
		FilesChanged: []string{"internal/ledger/parse_newline_test.go", "internal/ledger/parse.go"},
		Commands: []Command{
			{Cmd: "memctl update app-3f2 --claim", ExitCode: 0, Output: "✓ Updated issue: app-3f2 (in_progress, assignee dev)"},
			{Cmd: "memctl update app-zz9 --status in_progress", ExitCode: 3, Output: notFound},
			{Cmd: "go test ./...", ExitCode: 1, Output: goFail},
			{Cmd: "go test -v -run TestParseNoTrailingNewline ./internal/ledger", ExitCode: 0,
				Output: "=== RUN   TestParseNoTrailingNewline\n--- PASS: TestParseNoTrailingNewline (0.00s)\nPASS\nok  \tgithub.com/acme/app/internal/ledger\t0.009s"},
			{Cmd: "go test ./...", ExitCode: 0, Output: "ok  \tgithub.com/acme/app/internal/ledger\t0.010s\nok  \tgithub.com/acme/app/internal/tasks\t0.030s"},
			{Cmd: "git push origin main", ExitCode: 128, Output: push},
			{Cmd: `memctl close app-3f2 --reason "last fact kept without trailing newline" && bd close app-9k1`, ExitCode: 0,
				Output: "✓ Closed app-3f2: last fact kept without trailing newline\n✓ Closed app-9k1: Closed"},
		},
		Tests: []Test{{Name: "TestParseNoTrailingNewline", Status: "pass"}},
		Errors: []string{
			notFound,
			"String to replace not found in file.\nString: func parseFacts(",
			goFail,
			push,
		},
		TaskClaims: []string{"app-3f2"},
		TaskCloses: []string{"app-3f2", "app-9k1"},
	})
}

func readLines(t *testing.T, opts Options, lines ...string) *Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(context.Background(), path, RuntimeClaudeCode, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// After a compaction Claude Code writes the summary as a user message
// (isCompactSummary); it is the session's compact summary, not its intent.
func TestReadClaudeCodeCompactSummary(t *testing.T) {
	t.Parallel()
	s := readLines(t, Options{},
		`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":167012},"sessionId":"s2","cwd":"/w","timestamp":"2026-11-23T09:00:00Z"}`,
		`{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: the user wants the export fixed."},"sessionId":"s2","cwd":"/w","timestamp":"2026-11-23T09:00:01Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<user-prompt-submit-hook>ready: app-1</user-prompt-submit-hook>"},{"type":"text","text":"now add a changelog line"}]},"sessionId":"s2","cwd":"/w","timestamp":"2026-11-23T09:00:02Z"}`,
		`{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-5","role":"assistant","content":[{"type":"text","text":"Added the line"}]},"sessionId":"s2","timestamp":"2026-11-23T09:00:03Z"}`,
		`{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-5","role":"assistant","content":[{"type":"text","text":"under Unreleased."}]},"sessionId":"s2","timestamp":"2026-11-23T09:00:04Z"}`,
	)
	if want := "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: the user wants the export fixed."; s.CompactSummary != want {
		t.Errorf("CompactSummary = %q, want %q", s.CompactSummary, want)
	}
	if want := "now add a changelog line"; s.FirstUserText != want {
		t.Errorf("FirstUserText = %q, want %q", s.FirstUserText, want)
	}
	if want := "Added the line\n\nunder Unreleased."; s.LastAssistantText != want {
		t.Errorf("LastAssistantText = %q, want the text blocks of the last message joined: %q", s.LastAssistantText, want)
	}
}

// Newer Claude Code writes a subagent's turns to
// <session>/subagents/agent-*.jsonl: its edits, commands, tests, errors
// and closes are the session's, its prompt and answer are not.
func TestReadClaudeCodeSubagents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, lines ...string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("s1.jsonl",
		`{"type":"user","message":{"role":"user","content":"fix the export with a subagent"},"sessionId":"s1","cwd":"/w","timestamp":"2026-11-23T10:00:00Z"}`,
		`{"type":"assistant","message":{"id":"m1","model":"claude-opus-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_T","name":"Task","input":{"prompt":"fix csv.go"}}]},"sessionId":"s1","timestamp":"2026-11-23T10:00:01Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_T","content":"fixed"}]},"sessionId":"s1","timestamp":"2026-11-23T10:05:00Z"}`,
		`{"type":"assistant","message":{"id":"m2","model":"claude-opus-5","role":"assistant","content":[{"type":"text","text":"The subagent fixed csv.go."}]},"sessionId":"s1","timestamp":"2026-11-23T10:05:01Z"}`,
	)
	write("s1/subagents/agent-a1.jsonl",
		`{"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"fix csv.go"},"sessionId":"s1","cwd":"/w","timestamp":"2026-11-23T10:00:02Z"}`,
		`{"isSidechain":true,"agentId":"a1","type":"assistant","message":{"id":"m3","model":"claude-haiku-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_E","name":"Edit","input":{"file_path":"/w/csv.go","old_string":"a","new_string":"b"}}]},"timestamp":"2026-11-23T10:00:03Z"}`,
		`{"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_E","content":"ok"}]},"timestamp":"2026-11-23T10:00:04Z"}`,
		`{"isSidechain":true,"agentId":"a1","type":"assistant","message":{"id":"m4","model":"claude-haiku-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"Bash","input":{"command":"go test ./... && memctl close app-1"}}]},"timestamp":"2026-11-23T10:00:05Z"}`,
		`{"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"Exit code 1\n--- FAIL: TestCSV (0.00s)","is_error":true}]},"timestamp":"2026-11-23T10:00:06Z"}`,
		`{"isSidechain":true,"agentId":"a1","type":"assistant","message":{"id":"m5","model":"claude-haiku-5","role":"assistant","content":[{"type":"text","text":"done, tests fail"}]},"timestamp":"2026-11-23T10:00:07Z"}`,
	)
	write("s1/subagents/agent-a1.meta.json", `{"agentType":"general-purpose"}`)
	s, err := Read(context.Background(), filepath.Join(dir, "s1.jsonl"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, s, &Session{
		Runtime: RuntimeClaudeCode, SessionID: "s1", Model: "claude-opus-5", Cwd: "/w",
		Started: mustTime(t, "2026-11-23T10:00:00Z"), Ended: mustTime(t, "2026-11-23T10:05:01Z"),
		FirstUserText: "fix the export with a subagent", LastAssistantText: "The subagent fixed csv.go.",
		FilesChanged: []string{"csv.go"},
		Commands:     []Command{{Cmd: "go test ./... && memctl close app-1", ExitCode: 1, Output: "--- FAIL: TestCSV (0.00s)"}},
		Tests:        []Test{{Name: "TestCSV", Status: "fail"}},
		Errors:       []string{"--- FAIL: TestCSV (0.00s)"},
		TaskClaims:   []string{}, TaskCloses: []string{},
	})
}

// A session started with a custom slash command has that command as its
// intent; Claude Code's expansion of it (isMeta) is not typed.
func TestReadClaudeCodeSlashCommandIntent(t *testing.T) {
	t.Parallel()
	s := readLines(t, Options{},
		`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"}}`,
		`{"type":"user","message":{"role":"user","content":"<command-message>fix-issue is running…</command-message>\n<command-name>/fix-issue</command-name>\n<command-args>app-3f2</command-args>"}}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Find issue app-3f2 with memctl show, fix it, and close it."}]}}`,
	)
	if want := "/fix-issue app-3f2"; s.FirstUserText != want {
		t.Errorf("FirstUserText = %q, want %q", s.FirstUserText, want)
	}
}

// Edits name their file in file_path (Edit, Write, MultiEdit) or
// notebook_path (NotebookEdit); paths outside the root stay absolute, and
// Options.Root wins over the session's cwd.
func TestReadClaudeCodeFiles(t *testing.T) {
	t.Parallel()
	use := func(id, name, input string) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}]},"cwd":"/w/app/sub"}`
	}
	ok := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}}`
	}
	lines := []string{
		use("t1", "MultiEdit", `{"file_path":"/w/app/a.go","edits":[{"old_string":"a","new_string":"b"}]}`), ok("t1"),
		use("t2", "NotebookEdit", `{"notebook_path":"/w/app/nb/x.ipynb","new_source":"print(1)"}`), ok("t2"),
		use("t3", "Write", `{"file_path":"/etc/hosts","content":""}`), ok("t3"),
		use("t4", "Edit", `{"file_path":"/w/app/a.go","old_string":"b","new_string":"c"}`), ok("t4"),
		use("t5", "Edit", `{"file_path":"/w/app/pending.go","old_string":"b","new_string":"c"}`), // no result yet: the transcript lags
		use("t6", "Read", `{"file_path":"/w/app/read.go"}`), ok("t6"),
	}
	s := readLines(t, Options{Root: "/w/app"}, lines...)
	want := []string{"a.go", "nb/x.ipynb", "/etc/hosts", "pending.go"}
	if !equalStrings(s.FilesChanged, want) {
		t.Errorf("FilesChanged = %q, want %q", s.FilesChanged, want)
	}
	s = readLines(t, Options{}, lines...)
	want = []string{"/w/app/a.go", "/w/app/nb/x.ipynb", "/etc/hosts", "/w/app/pending.go"}
	if !equalStrings(s.FilesChanged, want) {
		t.Errorf("FilesChanged relative to cwd /w/app/sub = %q, want %q", s.FilesChanged, want)
	}
}

// How a Bash result gives the exit code: is_error false is 0, "Exit code
// N" is N, anything else the transcript does not say (a denial, a timeout,
// an interrupt, a background start) is -1, and such non-runs are not errors.
func TestReadClaudeCodeExitCodes(t *testing.T) {
	t.Parallel()
	bash := func(id, cmd string) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`
	}
	res := func(id, content string, isErr bool) string {
		e := ""
		if isErr {
			e = `,"is_error":true`
		}
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"` + content + `"` + e + `}]}}`
	}
	s := readLines(t, Options{},
		bash("a", "make"), res("a", `Exit code 2\nmake: *** [all] Error 2`, true),
		bash("b", "rm -rf /"), res("b", "Claude requested permissions to use Bash, but you haven't granted it yet.", true),
		bash("c", "sleep 999"), res("c", "Command timed out after 2m 0.0s", true),
		bash("d", "npm run dev"), res("d", "Command running in background with ID: bash_1", false),
		bash("e", "go vet ./..."), res("e", "[Request interrupted by user for tool use]", true),
		bash("f", "true"), res("f", "(No content)", false),
		bash("h", "pytest -x"), res("h", "Command was manually backgrounded by user with ID: b2q4uei9c", false),
		bash("i", "sleep 90"), res("i", `Exit code 137\n[Request interrupted by user for tool use]`, true),
		bash("g", "memctl close app-1"), // no result: unknown, the close still counts
	)
	want := []Command{
		{Cmd: "make", ExitCode: 2, Output: "make: *** [all] Error 2"},
		{Cmd: "rm -rf /", ExitCode: -1, Output: "Claude requested permissions to use Bash, but you haven't granted it yet."},
		{Cmd: "sleep 999", ExitCode: -1, Output: "Command timed out after 2m 0.0s"},
		{Cmd: "npm run dev", ExitCode: -1, Output: "Command running in background with ID: bash_1"},
		{Cmd: "go vet ./...", ExitCode: -1, Output: "[Request interrupted by user for tool use]"},
		{Cmd: "true", ExitCode: 0, Output: ""},
		{Cmd: "pytest -x", ExitCode: -1, Output: "Command was manually backgrounded by user with ID: b2q4uei9c"},
		{Cmd: "sleep 90", ExitCode: 137, Output: "[Request interrupted by user for tool use]"},
		{Cmd: "memctl close app-1", ExitCode: -1, Output: ""},
	}
	checkSession(t, &Session{Commands: s.Commands, Errors: s.Errors, TaskCloses: s.TaskCloses},
		&Session{Commands: want, Errors: []string{"make: *** [all] Error 2", "Command timed out after 2m 0.0s"}, TaskCloses: []string{"app-1"}})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
