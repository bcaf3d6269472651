package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// packedHistory makes a repository in which grow.txt gains a line and
// shrink.txt loses one in each of n commits, packed by go-git with
// offset deltas or, with refDeltas, deltas naming their base by hash (the loose
// objects stay, but packs are read first). The versions of each file are
// deltas of one another, in whichever direction go-git chose; it returns
// the root and the content of each file at each commit, oldest first.
func packedHistory(t *testing.T, n int, refDeltas bool) (string, map[string][]string) {
	t.Helper()
	root := t.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf(`{"id":"tk-%04d","title":"task number %d of the graph","priority":%d}`, i, i, i%5))
	}
	want := map[string][]string{}
	for c := range n {
		lines[(c*37)%len(lines)] += " "
		grow := strings.Join(lines[:len(lines)-n+c], "\n") + "\n"
		shrink := strings.Join(lines[:len(lines)-c], "\n") + "\n"
		for name, s := range map[string]string{"grow.txt": grow, "shrink.txt": shrink} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(name); err != nil {
				t.Fatal(err)
			}
			want[name] = append(want[name], s)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(int64(1e9+c), 0)}
		if _, err := wt.Commit(fmt.Sprintf("c%d", c), &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.RepackObjects(&git.RepackConfig{UseRefDeltas: refDeltas}); err != nil {
		t.Fatal(err)
	}
	return root, want
}

// TestBlobsFromPackDeltas reads every version of two files whose versions
// are packed as deltas, newest first as a log does, with the default cache
// and with one that keeps only the last two objects (so that chains are
// resolved again from their base), and checks each against what was
// committed.
func TestBlobsFromPackDeltas(t *testing.T) {
	const n = 30
	for _, tc := range []struct {
		name      string
		max       int
		refDeltas bool
	}{{"default cache", 0, false}, {"cache of two objects", 1, false}, {"deltas naming their base by hash", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			root, want := packedHistory(t, n, tc.refDeltas)
			repo, err := Find(root)
			if err != nil {
				t.Fatal(err)
			}
			h, err := repo.OpenHistory()
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			h.packs.cache.max = tc.max
			version := n
			_, err = h.WalkFirstParent(context.Background(), []string{"grow.txt", "shrink.txt"}, func(_ Commit, changes []FileChange) (bool, error) {
				version--
				for _, ch := range changes {
					got, err := h.Blob(ch.Path, ch.To)
					if err != nil {
						return false, err
					}
					if string(got) != want[ch.Path][version] {
						t.Errorf("%s at version %d: got %d bytes, want %d", ch.Path, version, len(got), len(want[ch.Path][version]))
					}
					if ch.From == "" {
						continue
					}
					if got, err = h.Blob(ch.Path, ch.From); err != nil {
						return false, err
					}
					if string(got) != want[ch.Path][version-1] {
						t.Errorf("%s at version %d: got %d bytes, want %d", ch.Path, version-1, len(got), len(want[ch.Path][version-1]))
					}
				}
				return true, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if version != 0 {
				t.Errorf("walk stopped at version %d", version)
			}
			if h.packs.patched == 0 {
				t.Error("no delta was applied: the blobs did not come from the pack's deltas")
			}
		})
	}
}

func TestResolvedCacheKeepsTheLastTwo(t *testing.T) {
	c := resolvedCache{max: 10}
	c.put(0, 1, make([]byte, 8))
	c.put(0, 2, make([]byte, 8))
	c.put(0, 3, make([]byte, 8))
	if _, ok := c.get(0, 1); ok {
		t.Error("the oldest entry is kept past the budget")
	}
	for _, off := range []int64{2, 3} {
		if _, ok := c.get(0, off); !ok {
			t.Errorf("entry %d is gone; the last two are always kept", off)
		}
	}
	c.get(0, 2) // now the most recent
	c.put(1, 2, make([]byte, 1))
	if _, ok := c.get(0, 3); ok {
		t.Error("the least recently used entry is kept past the budget")
	}
	if _, ok := c.get(0, 2); !ok {
		t.Error("the entry used last is gone")
	}
}
