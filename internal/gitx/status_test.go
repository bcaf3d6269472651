package gitx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

func TestParseStatus(t *testing.T) {
	t.Parallel()
	out := " M internal/x.go\x00M  staged.go\x00A  new.go\x00 D gone.go\x00R  to.go\x00from.go\x00?? dir/untracked file.py\x00MM internal/x.go\x00"
	want := []string{"dir/untracked file.py", "from.go", "gone.go", "internal/x.go", "new.go", "staged.go", "to.go"}
	if got := parseStatus(out); !slices.Equal(got, want) {
		t.Errorf("parseStatus = %q, want %q", got, want)
	}
	if got := parseStatus(""); len(got) != 0 {
		t.Errorf("clean tree: %q", got)
	}
}

func TestChangedOutside(t *testing.T) {
	gitxtest.Isolate(t)
	dir := t.TempDir()
	gitxtest.Git(t, dir, "init", "-q", ".")
	gitxtest.Write(t, dir, "a.go", "package a\n")
	gitxtest.Write(t, dir, ".ledger/runs/r.json", "{}\n")
	gitxtest.Write(t, dir, ".beads/issues.jsonl", "")
	gitxtest.Write(t, dir, "sub/b.go", "package b\n")
	gitxtest.Write(t, dir, ".ledgerx/c.go", "package c\n")
	got, err := ChangedOutside(context.Background(), dir, ".ledger", ".beads")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".ledgerx/c.go", "a.go", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("ChangedOutside = %q, want %q", got, want)
	}
}

// TestChangedLeavesTheIndexAlone: git status refreshes the index's stat
// data and writes it back under index.lock unless told not to; memctl's
// reads run from hooks beside the user's own git, and must never take
// that lock (a user's commit would fail on it) or rewrite the index.
func TestChangedLeavesTheIndexAlone(t *testing.T) {
	gitxtest.Isolate(t)
	dir := t.TempDir()
	gitxtest.Git(t, dir, "init", "-q", ".")
	gitxtest.Write(t, dir, "a.go", "package a\n")
	gitxtest.Git(t, dir, "add", "a.go")
	gitxtest.Git(t, dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "a")
	// A new modification time with the same content: the index's stat data
	// is stale, which a refreshing status would write back.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a.go"), later, later); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, changed := range []func() ([]string, error){
		func() ([]string, error) { return Changed(context.Background(), dir) },
		func() ([]string, error) { return ChangedOutside(context.Background(), dir, ".ledger") },
	} {
		if got, err := changed(); err != nil || len(got) != 0 {
			t.Fatalf("changed = %q, %v; want nothing (the content is the same)", got, err)
		}
		after, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Fatal("git status rewrote .git/index: it took index.lock")
		}
	}
}
