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
// (docs/agents.md): recorded stdin of Claude Code's tool events, and what
// memctl answers in a workspace where a run failed in
// internal/schema/schema.go and the error has an approved playbook. The
// answers are golden files there (*.answer) (MEMCTL_UPDATE=1 rewrites them).
func TestTriggeredExample(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "triggered")
	env, root := workspace(t)
	for _, f := range []string{"internal/schema/schema.go"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("package schema\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errText := "internal/schema/schema.go:12:2: undefined: SchemaV2"
	run(t, env, "run", "record", "--run-id", "r-7d2e91", "--status", "failure", "--started", "2026-11-20T09:30:00Z",
		"--file", "internal/schema/schema.go", "--command", "1:go build ./...", "--error", errText)
	// The playbook of the error go test meets, as memctl review approves it.
	failure, err := os.ReadFile(filepath.Join(dir, "claude-post-tool-use-failure.json"))
	if err != nil {
		t.Fatal(err)
	}
	output := "# example.com/app/internal/schema\n" + errText + "\nFAIL\texample.com/app/internal/schema [build failed]"
	if !bytes.Contains(failure, []byte(strings.ReplaceAll(strings.ReplaceAll(output, "\n", `\n`), "\t", `\t`))) {
		t.Fatal("the failure fixture's output is not the one the playbook is for")
	}
	sig := signature.Of(output).Hash
	run(t, env, "playbook", "propose", "--signature", sig, "--steps", "Run go generate ./... after changing the schema", "--error", "undefined: SchemaV2", "--evidence", "run:r-7d2e91")
	out := run(t, env, "proposals", "--json")
	id := between(out, `"id": "`, `"`)
	run(t, env, "review", id, "--approve")

	// Each runtime's tool events, in the shapes its source and docs give
	// (README.md); the repository they were made in, /home/dev/app, is
	// this test's.
	for _, c := range []struct{ runtime, event, input string }{
		{"claude", "pre-tool-use", "claude-pre-tool-use"},
		{"claude", "post-tool-use", "claude-post-tool-use-failure"},
		{"claude", "post-tool-use", "claude-post-tool-use"},
		{"codex", "pre-tool-use", "codex-pre-tool-use"},
		{"codex", "post-tool-use", "codex-post-tool-use"},
		{"gemini", "pre-tool-use", "gemini-before-tool"},
		{"gemini", "post-tool-use", "gemini-after-tool-edit"},
		{"gemini", "post-tool-use", "gemini-after-tool-shell"},
		{"cursor", "post-tool-use", "cursor-post-tool-use-edit"},
		{"cursor", "post-tool-use", "cursor-post-tool-use-failure"},
		{"cursor", "post-tool-use", "cursor-post-tool-use-shell"},
		{"opencode", "post-tool-use", "opencode-post-tool-use-edit"},
		{"opencode", "post-tool-use", "opencode-post-tool-use-bash"},
	} {
		in, err := os.ReadFile(filepath.Join(dir, c.input+".json"))
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.ReplaceAll(in, []byte("/home/dev/app"), []byte(filepath.ToSlash(root)))
		got := &bytes.Buffer{}
		env.In, env.Out, env.Err, env.StdinTTY = bytes.NewReader(in), got, &bytes.Buffer{}, false
		Main(context.Background(), []string{"hook", c.runtime, c.event}, env)
		golden := filepath.Join(dir, c.input+".answer")
		if os.Getenv("MEMCTL_UPDATE") != "" {
			if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("hook %s %s < %s.json:\n%s\nwant (%s.answer):\n%s", c.runtime, c.event, c.input, got, c.input, want)
		}
	}
	// The failure is in the session's run record.
	// Each session's failing go test is in its run record, with the
	// error's signature (Codex's too, which passes no exit status: its
	// output has the signature of an approved playbook).
	for rt, sid := range map[string]string{"claude-code": "0ff95009-4069-4d42-af23-44a2b85d8bc7", "codex": "01a2256a-553b-7ff2-a7a1-7df70497366f",
		"gemini": "ee289a04-c227-454a-8254-9743e2b4c1f8", "cursor": "b7e2c1d0-3f4a-4b5c-9d6e-7f8a9b0c1d2e", "opencode": "ses_dda959106ffeDA5jhtzN9xDAUS"} {
		env.Out, env.Err = &bytes.Buffer{}, &bytes.Buffer{}
		out := run(t, env, "runs", "show", runs.SessionRunID(rt, sid), "--json")
		if !strings.Contains(out, `"cmd": "go test ./..."`) || !strings.Contains(out, `"signature": "`+sig+`"`) {
			t.Errorf("%s session %s: the failing go test is not in its run record:\n%s", rt, sid, out)
		}
	}
}

func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}
