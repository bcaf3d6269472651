package gitx

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

// TestIndexPaths reads the index as git writes it, in every version and
// with both object formats, and lists what git ls-files --stage lists.
func TestIndexPaths(t *testing.T) {
	gitxtest.Isolate(t)
	files := []string{"a.go", "b/c.go", "b/d/e.txt", "long/" + strings.Repeat("x", 70) + ".go", "z", "é.md"}
	for _, c := range []struct {
		name    string
		init    []string
		oidSize int
		version string
	}{
		{"v2", []string{"init", "-q"}, 20, "2"},
		{"v3 (an intent-to-add entry)", []string{"init", "-q"}, 20, "3"},
		{"v4", []string{"init", "-q"}, 20, "4"},
		{"sha256 v4", []string{"init", "-q", "--object-format=sha256"}, 32, "4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gitxtest.Git(t, dir, append(c.init, ".")...)
			for _, f := range files {
				gitxtest.Write(t, dir, f, "content of "+f+"\n")
			}
			gitxtest.Git(t, dir, "add", ".")
			if c.version == "3" {
				gitxtest.Write(t, dir, "new.go", "package new\n")
				gitxtest.Git(t, dir, "add", "-N", "new.go")
			}
			gitxtest.Git(t, dir, "update-index", "--index-version", c.version)
			got, err := IndexPaths(dir+"/.git", c.oidSize)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(strings.TrimRight(gitxtest.Git(t, dir, "-c", "core.quotePath=false", "ls-files", "--stage"), "\n"), "\n") {
				_, p, _ := strings.Cut(l, "\t")
				want = append(want, p)
			}
			if !slices.Equal(got, want) {
				t.Errorf("IndexPaths = %q\nwant %q", got, want)
			}
			data, _ := os.ReadFile(dir + "/.git/index")
			if c.version != "4" && (data[7] != c.version[0]-'0') {
				t.Errorf("the index is version %d, not %s", data[7], c.version)
			}
		})
	}
}

// TestIndexPathsRefuses: what is not an index of a known version is an
// error, never a wrong list.
func TestIndexPathsRefuses(t *testing.T) {
	for _, data := range [][]byte{
		nil,
		[]byte("DIRC"),
		[]byte("DIRC\x00\x00\x00\x05\x00\x00\x00\x00"),
		[]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01short"),
		[]byte("XXXX\x00\x00\x00\x02\x00\x00\x00\x00"),
	} {
		if got, err := parseIndexPaths(data, 20); err == nil {
			t.Errorf("parseIndexPaths(%q) = %q, want an error", data, got)
		}
	}
}
