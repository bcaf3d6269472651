package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/cli"
)

// TestExampleWorkspace keeps examples/workspace, which `make demo` runs on,
// a workspace that initialises and passes check.
func TestExampleWorkspace(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", "workspace"))); err != nil {
		t.Fatal(err)
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		env := testEnv()
		env.In, env.Out, env.Err = strings.NewReader(""), &out, &errb
		env.StdinTTY, env.StdoutTTY = false, false
		env.Getwd = func() (string, error) { return dir, nil }
		env.Getenv = func(string) string { return "" }
		code := cli.Main(context.Background(), args, env)
		return out.String(), errb.String(), code
	}
	if _, stderr, code := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run("check"); code != 0 {
		t.Fatalf("check: exit %d\n%s", code, stderr)
	}
	out, stderr, code := run("facts", "--json")
	if code != 0 || !strings.Contains(out, `"id": "inv-limits"`) {
		t.Fatalf("facts: exit %d\n%s\n%s", code, out, stderr)
	}
}
