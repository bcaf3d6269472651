package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	for _, c := range []struct{ event, input, golden string }{
		{"pre-tool-use", "claude-pre-tool-use.json", "claude-pre-tool-use.answer"},
		{"post-tool-use", "claude-post-tool-use-failure.json", "claude-post-tool-use-failure.answer"},
		{"post-tool-use", "claude-post-tool-use.json", "claude-post-tool-use.answer"},
	} {
		in, err := os.ReadFile(filepath.Join(dir, c.input))
		if err != nil {
			t.Fatal(err)
		}
		got := &bytes.Buffer{}
		env.In, env.Out, env.Err, env.StdinTTY = bytes.NewReader(in), got, &bytes.Buffer{}, false
		Main(context.Background(), []string{"hook", "claude", c.event}, env)
		golden := filepath.Join(dir, c.golden)
		if os.Getenv("MEMCTL_UPDATE") != "" {
			if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("hook claude %s < %s:\n%s\nwant (%s):\n%s", c.event, c.input, got, c.golden, want)
		}
	}
	// The failure is in the session's run record.
	if out := run(t, env, "runs", "--json"); !strings.Contains(out, `"session_id": "3f1c2a"`) {
		t.Errorf("the session's run record is missing:\n%s", out)
	}
}

func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}
