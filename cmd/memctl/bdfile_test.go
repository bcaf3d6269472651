package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/cli"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// TestUpdateChangesOneLineOfBdFile is the adoption promise for a large
// bd-written file: after one memctl update, issues.jsonl differs from
// what bd wrote in that line only. The file is in bd's export
// order, which is not sorted by id (bench-10 comes after bench-f), so a
// writer that re-sorted would change most lines.
func TestUpdateChangesOneLineOfBdFile(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, ".home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	orig := taskstest.JSONL(rand.New(rand.NewPCG(16, 2000)), 2000)
	path := filepath.Join(dir, ".beads", "issues.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		env := testEnv()
		env.In, env.Out, env.Err = strings.NewReader(""), &out, &errb
		env.Getwd = func() (string, error) { return dir, nil }
		env.Getenv = func(k string) string {
			if k == "MEMCTL_ACTOR" {
				return "tester"
			}
			return ""
		}
		if code := cli.Main(context.Background(), args, env); code != 0 {
			t.Fatalf("memctl %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
	}
	run("init", "--prefix", "bench")
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, orig) {
		t.Fatalf("init changed issues.jsonl (err %v)", err)
	}
	const id = "bench-7c1"
	run("update", id, "--priority", "0", "--add-label", "adopted")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := strings.Split(string(orig), "\n")
	after := strings.Split(string(got), "\n")
	if len(after) != len(before) {
		t.Fatalf("update changed the number of lines: %d, was %d", len(after), len(before))
	}
	var changed []int
	for i := range before {
		if before[i] != after[i] {
			changed = append(changed, i+1)
		}
	}
	if len(changed) != 1 || !strings.Contains(after[changed[0]-1], `"id":"`+id+`"`) {
		t.Fatalf("update of %s changed lines %v, want only that issue's line", id, changed)
	}
}
