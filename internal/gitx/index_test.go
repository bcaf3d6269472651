package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

func TestConflictMarkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data string
		want []int
	}{
		{"clean file has none", "a\nb\n", nil},
		{"a whole conflict is three lines", "a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\nb\n", []int{2, 4, 6}},
		{"bare markers count", "<<<<<<<\nx\n=======\ny\n>>>>>>>", []int{1, 3, 5}},
		{"diff3 style base section", "<<<<<<< ours\nx\n||||||| base\nz\n=======\ny\n>>>>>>> theirs\n", []int{1, 5, 7}},
		{"crlf line ends", "<<<<<<< ours\r\nx\r\n=======\r\ny\r\n>>>>>>> theirs\r\n", []int{1, 3, 5}},
		{"setext heading underline is not a separator", "Title\n=======\ntext\n", nil},
		{"an opening marker alone counts", "a\n<<<<<<< HEAD\nb\n", []int{2}},
		{"a closing marker alone counts", "a\n>>>>>>> feature\n", []int{2}},
		{"longer runs are not markers", "<<<<<<<< x\n>>>>>>>>\n", nil},
		{"marker text inside a line is not a marker", `{"title":"<<<<<<< x"}` + "\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConflictMarkers([]byte(tc.data)); !slices.Equal(got, tc.want) {
				t.Errorf("ConflictMarkers = %v, want %v", got, tc.want)
			}
		})
	}
}

// unmergedRepo makes a repository whose index holds path unmerged with the
// given stage contents ("" = the side lacks the file) and other.txt merged.
func unmergedRepo(t *testing.T, path string, stages [3]string) string {
	return gitxtest.StoppedMerge(t, map[string][3]string{path: stages}, map[string]string{"other.txt": "other\n"})
}

func TestUnmergedPathsAndStages(t *testing.T) {
	t.Parallel()
	root := unmergedRepo(t, ".beads/issues.jsonl", [3]string{"base\n", "ours\n", "theirs\n"})
	got, err := UnmergedPaths(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != ".beads/issues.jsonl" || got[0].Has != [3]bool{true, true, true} {
		t.Fatalf("UnmergedPaths = %+v, want only .beads/issues.jsonl with three stages", got)
	}
	v, err := ReadStages(root, got[0])
	if err != nil {
		t.Fatal(err)
	}
	if string(v.Base) != "base\n" || string(v.Ours) != "ours\n" || string(v.Theirs) != "theirs\n" {
		t.Errorf("ReadStages = %q, %q, %q", v.Base, v.Ours, v.Theirs)
	}
}

func TestUnmergedAddedOnBothSidesHasNoBase(t *testing.T) {
	t.Parallel()
	root := unmergedRepo(t, "f.md", [3]string{"", "ours\n", "theirs\n"})
	got, err := UnmergedPaths(root)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ReadStages(root, got[0])
	if err != nil {
		t.Fatal(err)
	}
	if v.Base != nil || string(v.Ours) != "ours\n" {
		t.Errorf("ReadStages = %q, %q, want no base", v.Base, v.Ours)
	}
}

func TestUnmergedPathsOfCleanIndex(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	got, err := UnmergedPaths(root)
	if err != nil || len(got) != 0 {
		t.Fatalf("UnmergedPaths = %v, %v, want none", got, err)
	}
	if _, err := UnmergedPaths(t.TempDir()); err == nil || errors.Is(err, ErrNotUnmerged) {
		t.Errorf("UnmergedPaths outside a repository: err = %v, want an open error", err)
	}
}

func TestStoppedUnmerged(t *testing.T) {
	t.Parallel()
	root := unmergedRepo(t, ".beads/issues.jsonl", [3]string{"base\n", "ours\n", "theirs\n"})
	r, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.StoppedUnmerged(".beads/issues.jsonl"); err != nil || got {
		t.Errorf("with no merge under way = %v, %v, want false (the index is not read)", got, err)
	}
	if err := os.WriteFile(filepath.Join(r.GitDir, "MERGE_HEAD"), []byte("0000000000000000000000000000000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := r.StoppedUnmerged(".beads/issues.jsonl"); err != nil || !got {
		t.Errorf("during a merge = %v, %v, want true", got, err)
	}
	if got, err := r.StoppedUnmerged("other.txt"); err != nil || got {
		t.Errorf("a merged path = %v, %v, want false", got, err)
	}
}
