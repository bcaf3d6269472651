package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/cli"
)

// TestTaskCacheColdEqualsWarm runs every read command of the task graph
// twice over a rich graph, once with the derived cache removed (memctl
// parses issues.jsonl) and once with the cache in place (memctl decodes
// the cache and completes issues on demand), and requires byte-identical
// stdout and stderr and the same exit code. The cache is an accelerator,
// never a second answer.
func TestTaskCacheColdEqualsWarm(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, ".home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	now, _ := time.Parse(time.RFC3339, testNow)
	run := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		var out, errb bytes.Buffer
		env := testEnv()
		env.In, env.Out, env.Err = strings.NewReader(""), &out, &errb
		env.StdinTTY, env.StdoutTTY = false, false
		env.Getwd = func() (string, error) { return dir, nil }
		env.Getenv = func(k string) string {
			if k == "MEMCTL_ACTOR" {
				return "tester"
			}
			return ""
		}
		env.Now = func() time.Time { return now }
		code = cli.Main(context.Background(), args, env)
		return out.String(), errb.String(), code
	}
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := run(args...)
		if code != 0 {
			t.Fatalf("memctl %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		return strings.TrimSpace(out)
	}
	must("init", "--prefix", "mc")
	epic := must("create", "Epic", "-t", "epic", "-p", "1", "--silent")
	child := must("create", "Child", "--parent", epic, "-l", "backend,api", "-d", "the child", "--silent")
	child2 := must("create", "Second child", "--parent", epic, "--silent")
	blocker := must("create", "Blocker", "-t", "bug", "-p", "0", "--silent")
	related := must("create", "Related", "--silent")
	done := must("create", "Done already", "--silent")
	later := must("create", "Later", "--silent")
	parked := must("create", "Parked", "--parent", epic, "--silent")
	must("dep", "add", child, blocker)
	must("dep", "add", child2, related, "-t", "related")
	must("dep", "add", related, done, "-t", "discovered-from")
	must("dep", "add", later, blocker)
	must("comment", child, "first note")
	must("comment", child, "second note")
	must("label", "add", blocker, "urgent")
	must("close", done, "--reason", "shipped")
	must("update", later, "--defer", "2026-12-24")
	must("update", related, "--claim")
	must("update", parked, "--status", "deferred")
	must("dep", "add", parked, later, "-t", "conditional-blocks")

	ids := []string{epic, child, child2, blocker, related, done, later, parked, "mc-nope"}
	var cmds [][]string
	for _, id := range ids {
		cmds = append(cmds,
			[]string{"show", id}, []string{"dep", "list", id}, []string{"dep", "list", id, "--direction", "up"},
			[]string{"dep", "tree", id}, []string{"dep", "tree", id, "--direction", "both"},
			[]string{"comments", id}, []string{"label", "list", id})
	}
	cmds = append(cmds, []string{"show", epic, child, child2, blocker},
		[]string{"list"}, []string{"list", "--all"}, []string{"list", "--status", "closed"},
		[]string{"list", "--status", "deferred"}, []string{"list", "--ready"}, []string{"list", "--label", "urgent"}, []string{"list", "-t", "epic", "--all"},
		[]string{"ready"}, []string{"ready", "--sort", "oldest"}, []string{"ready", "--parent", epic}, []string{"blocked"},
		[]string{"dep", "cycles"}, []string{"stats"})

	cache := filepath.Join(dir, ".git", "memctl", "tasks.cache")
	for _, c := range cmds {
		for _, args := range [][]string{c, append(c[:len(c):len(c)], "--json")} {
			name := strings.Join(args, " ")
			if err := os.Remove(cache); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			coldOut, coldErr, coldCode := run(args...)
			if _, err := os.Stat(cache); err != nil {
				t.Fatalf("%s: the cold run left no cache: %v", name, err)
			}
			warmOut, warmErr, warmCode := run(args...)
			if coldOut != warmOut || coldErr != warmErr || coldCode != warmCode {
				t.Errorf("memctl %s: cold and warm differ\ncold (exit %d):\n%s%s\nwarm (exit %d):\n%s%s",
					name, coldCode, coldOut, coldErr, warmCode, warmOut, warmErr)
			}
		}
	}
}
