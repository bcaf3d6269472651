package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
)

// examples/triggered/ is the triggered layer's worked example
// (docs/agents.md): each runtime's tool events as it sends them, and what
// memctl answers in a workspace where a run failed in
// internal/schema/schema.go and the error has an approved playbook, one
// workspace per runtime. The answers are golden files there (*.answer)
// (MEMCTL_UPDATE=1 rewrites them); each session's run record must hold
// the failing go test with the error's signature, and the runtimes whose
// edits come after the tool the file they wrote.
func TestTriggeredExample(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "triggered")
	errText := "internal/schema/schema.go:12:2: undefined: SchemaV2"
	output := "# example.com/app/internal/schema\n" + errText + "\nFAIL\texample.com/app/internal/schema [build failed]"
	sig := signature.Of(output).Hash
	failure, err := os.ReadFile(filepath.Join(dir, "claude-post-tool-use-failure.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(failure, []byte(strings.ReplaceAll(strings.ReplaceAll(output, "\n", `\n`), "\t", `\t`))) {
		t.Fatal("the failure fixture's output is not the one the playbook is for")
	}
	for _, rt := range []struct {
		name, runRuntime, session string
		editRecorded              bool
		events                    []struct{ event, input string }
	}{
		{"claude", "claude-code", "0ff95009-4069-4d42-af23-44a2b85d8bc7", false, []struct{ event, input string }{
			{"pre-tool-use", "claude-pre-tool-use"}, {"post-tool-use", "claude-post-tool-use-failure"}, {"post-tool-use", "claude-post-tool-use"}}},
		{"codex", "codex", "01a2256a-553b-7ff2-a7a1-7df70497366f", false, []struct{ event, input string }{
			{"pre-tool-use", "codex-pre-tool-use"}, {"post-tool-use", "codex-post-tool-use"}}},
		{"gemini", "gemini", "ee289a04-c227-454a-8254-9743e2b4c1f8", true, []struct{ event, input string }{
			{"pre-tool-use", "gemini-before-tool"}, {"post-tool-use", "gemini-after-tool-edit"}, {"post-tool-use", "gemini-after-tool-shell"}}},
		{"cursor", "cursor", "b7e2c1d0-3f4a-4b5c-9d6e-7f8a9b0c1d2e", true, []struct{ event, input string }{
			{"post-tool-use", "cursor-post-tool-use-edit"}, {"post-tool-use", "cursor-post-tool-use-failure"}, {"post-tool-use", "cursor-post-tool-use-shell"}}},
		{"opencode", "opencode", "ses_dda959106ffeDA5jhtzN9xDAUS", true, []struct{ event, input string }{
			{"post-tool-use", "opencode-post-tool-use-edit"}, {"post-tool-use", "opencode-post-tool-use-bash"}}},
	} {
		t.Run(rt.name, func(t *testing.T) {
			env, root := workspace(t)
			if err := os.MkdirAll(filepath.Join(root, "internal", "schema"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "internal", "schema", "schema.go"), []byte("package schema\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, env, "run", "record", "--run-id", "r-7d2e91", "--status", "failure", "--started", "2026-11-20T09:30:00Z",
				"--file", "internal/schema/schema.go", "--command", "1:go build ./...", "--error", errText)
			// The playbook of the error go test meets, as memctl review
			// approves it.
			run(t, env, "playbook", "propose", "--signature", sig, "--steps", "Run go generate ./... after changing the schema", "--error", "undefined: SchemaV2", "--evidence", "run:r-7d2e91")
			id := between(run(t, env, "proposals", "--json"), `"id": "`, `"`)
			run(t, env, "review", id, "--approve")
			for _, c := range rt.events {
				in, err := os.ReadFile(filepath.Join(dir, c.input+".json"))
				if err != nil {
					t.Fatal(err)
				}
				// The repository they were made in, /home/dev/app, is this test's.
				in = bytes.ReplaceAll(in, []byte("/home/dev/app"), []byte(filepath.ToSlash(root)))
				got := &bytes.Buffer{}
				env.In, env.Out, env.Err, env.StdinTTY = bytes.NewReader(in), got, &bytes.Buffer{}, false
				Main(context.Background(), []string{"hook", rt.name, c.event}, env)
				checkGoldenFile(t, filepath.Join(dir, c.input+".answer"), got.String())
			}
			env.Out, env.Err = &bytes.Buffer{}, &bytes.Buffer{}
			out := run(t, env, "runs", "show", runs.SessionRunID(rt.runRuntime, rt.session), "--json")
			if !strings.Contains(out, `"cmd": "go test ./..."`) || !strings.Contains(out, `"signature": "`+sig+`"`) {
				t.Errorf("the failing go test is not in the session's run record:\n%s", out)
			}
			if recorded := strings.Contains(out, `"internal/schema/schema.go"`); recorded != rt.editRecorded {
				t.Errorf("the edit's file in the run record: %v, want %v:\n%s", recorded, rt.editRecorded, out)
			}
		})
	}
}

func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}
