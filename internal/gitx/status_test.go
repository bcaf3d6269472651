package gitx

import (
	"context"
	"slices"
	"testing"

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
