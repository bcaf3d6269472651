package prime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

// TestChangedCache: the answer kept for the named files is git's while
// nothing git's answer depends on has changed, and git is asked again on
// any such change: an edit, a chmod, staging, a commit, an untracked file
// of the answer going away. A file of another name changes nothing.
func TestChangedCache(t *testing.T) {
	gitxtest.Isolate(t)
	dir := t.TempDir()
	gitxtest.Git(t, dir, "init", "-q", ".")
	gitxtest.Write(t, dir, "a.go", "package a\n")
	gitxtest.Write(t, dir, "b.go", "package b\n")
	gitxtest.Write(t, dir, ".ledger/runs/r.json", "{}\n")
	gitxtest.Git(t, dir, "add", ".")
	commit := func() {
		gitxtest.Git(t, dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "c")
	}
	commit()
	git := filepath.Join(dir, ".git")
	ws := &config.Workspace{Repo: &gitx.Repo{Root: dir, GitDir: git, CommonDir: git}, Root: dir}
	named := func(b string) bool { return b == "a.go" || b == "c.go" }
	at := filepath.Join(git, "memctl", "prime-changed.cache")
	asked := 0
	ask := func() ([]string, error) {
		asked++
		return gitx.ChangedOutside(context.Background(), dir, ".ledger", ".beads")
	}
	step := func(name string, wantAsked bool, want ...string) {
		t.Helper()
		before := asked
		got, err := changedCache(ws, at, named, ask)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: changed = %q, want %q", name, got, want)
		}
		if (asked > before) != wantAsked {
			t.Errorf("%s: git asked %v, want %v", name, asked > before, wantAsked)
		}
		// As if the answer had been kept a while after the last change:
		// within fsx.RacyWindow of it, the answer is not trusted.
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(at, later, later); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	step("first", true)
	step("nothing changed", false)
	gitxtest.Write(t, dir, "b.go", "package b // another name\n")
	step("a file of another name", false)
	gitxtest.Write(t, dir, "a.go", "package a // edited\n")
	step("a named file edited", true, "a.go")
	step("again", false, "a.go")
	gitxtest.Git(t, dir, "add", "a.go")
	step("staged", true, "a.go")
	commit()
	step("committed", true)
	if err := os.Chmod(filepath.Join(dir, "a.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	step("chmod +x", true, "a.go")
	gitxtest.Write(t, dir, "sub/c.go", "package c\n")
	gitxtest.Git(t, dir, "add", "a.go") // any change of the index asks git again
	step("an untracked named file", true, "a.go", "sub/c.go")
	if err := os.Remove(filepath.Join(dir, "sub", "c.go")); err != nil {
		t.Fatal(err)
	}
	step("the untracked file removed", true, "a.go")

	// Within the racy window of the newest change (the index and a.go
	// changed a moment ago) an answer kept just now is not used.
	asked = 0
	if _, err := changedCache(ws, at, named, ask); err != nil || asked != 0 {
		t.Fatalf("settled answer: git asked %d times, %v; want 0", asked, err)
	}
	now := time.Now()
	if err := os.Chtimes(at, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := changedCache(ws, at, named, ask); err != nil || asked != 1 {
		t.Errorf("an answer kept within the racy window was used (git asked %d times, want 1)", asked)
	}
}
