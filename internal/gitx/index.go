package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Unmerged is a path that a merge left unresolved in the index: git
// recorded the common ancestor (stage 1), ours (stage 2) and theirs (stage
// 3) instead of one merged entry. A side that does not have the file (added
// on one side only, or deleted on one) has no stage.
type Unmerged struct {
	Path   string // slash-separated, relative to the working tree's root
	Stages [3]plumbing.Hash
	Has    [3]bool // Has[i] says whether stage i+1 exists
}

// UnmergedPaths reads the index of the working tree at root and returns its
// unmerged paths, sorted. It uses go-git, so it needs no git binary.
func UnmergedPaths(root string) ([]Unmerged, error) {
	idx, err := readIndex(root)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*Unmerged{}
	for _, e := range idx.Entries {
		if e.Stage < index.AncestorMode || e.Stage > index.TheirMode {
			continue
		}
		u := byPath[e.Name]
		if u == nil {
			u = &Unmerged{Path: e.Name}
			byPath[e.Name] = u
		}
		u.Stages[e.Stage-1] = e.Hash
		u.Has[e.Stage-1] = true
	}
	out := make([]Unmerged, 0, len(byPath))
	for _, u := range byPath {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Versions are the three sides of an unmerged path, read from the index:
// the merge base, ours and theirs. A side that lacks the file is nil.
type Versions struct {
	Base, Ours, Theirs []byte
}

// ReadStages returns the blobs of u's stages from the repository at root.
func ReadStages(root string, u Unmerged) (*Versions, error) {
	r, err := open(root)
	if err != nil {
		return nil, err
	}
	var out [3][]byte
	for i := range u.Stages {
		if !u.Has[i] {
			continue
		}
		b, err := readBlob(r, u.Stages[i])
		if err != nil {
			return nil, fmt.Errorf("read stage %d of %s: %w", i+1, u.Path, err)
		}
		out[i] = b
	}
	return &Versions{Base: out[0], Ours: out[1], Theirs: out[2]}, nil
}

func readBlob(r *git.Repository, h plumbing.Hash) ([]byte, error) {
	blob, err := r.BlobObject(h)
	if err != nil {
		return nil, err
	}
	return blobBytes(blob)
}

// blobBytes reads a blob's content. The size is known: one allocation,
// not io.ReadAll's doublings, which cost a history walk over a large file
// most of its time.
func blobBytes(blob *object.Blob) ([]byte, error) {
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, blob.Size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, err
	}
	return data, nil
}

func open(root string) (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	return r, nil
}

func readIndex(root string) (*index.Index, error) {
	r, err := open(root)
	if err != nil {
		return nil, err
	}
	idx, err := r.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read the git index: %w", err)
	}
	return idx, nil
}

// Conflict markers as git writes them (conflict-marker-size 7): a line that
// starts with one of these opens, separates or closes a conflict.
var (
	markerOurs   = []byte("<<<<<<<")
	markerSep    = []byte("=======")
	markerTheirs = []byte(">>>>>>>")
)

// ConflictMarkers returns the 1-based numbers of the lines of data that are
// git conflict markers: "<<<<<<< " or ">>>>>>> " (or the bare marker) and a
// line that is exactly "=======". A Markdown setext heading underline is
// "=======" too, so a separator counts only between an opening and a
// closing marker.
func ConflictMarkers(data []byte) []int {
	var lines []int
	open := 0 // line of the unclosed opening marker, 0 when none
	var sep []int
	for i, n := 0, 1; i < len(data); n++ {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data) - i
		}
		line := bytes.TrimRight(data[i:i+end], "\r")
		i += end + 1
		switch {
		case isMarker(line, markerOurs):
			if open != 0 {
				lines = append(lines, open)
			}
			open, sep = n, nil
		case open != 0 && bytes.Equal(line, markerSep):
			sep = append(sep, n)
		case isMarker(line, markerTheirs):
			if open != 0 {
				lines = append(lines, open)
				lines = append(lines, sep...)
			}
			lines = append(lines, n)
			open, sep = 0, nil
		}
	}
	if open != 0 {
		lines = append(lines, open)
		lines = append(lines, sep...)
	}
	sort.Ints(lines)
	return lines
}

func isMarker(line, marker []byte) bool {
	rest, ok := bytes.CutPrefix(line, marker)
	return ok && (len(rest) == 0 || rest[0] == ' ')
}

// ErrNotUnmerged is returned for a path that the index holds merged.
var ErrNotUnmerged = errors.New("not unmerged in the git index")

// inProgress are the files in a git directory that say a merge, pull,
// cherry-pick, revert or rebase is under way: the operations that leave
// unmerged paths (apart from git stash pop, which leaves no such file).
var inProgress = []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"}

// StoppedUnmerged reports whether a merge or similar operation is under way
// in r's working tree and left the slash path rel unmerged in the index.
// Outside such an operation it reads no index, so it is cheap enough to
// ask before every command that reads the file.
func (r *Repo) StoppedUnmerged(rel string) (bool, error) {
	busy := false
	for _, name := range inProgress {
		if _, err := os.Stat(filepath.Join(r.GitDir, name)); err == nil {
			busy = true
			break
		}
	}
	if !busy {
		return false, nil
	}
	idx, err := readIndex(r.Root)
	if err != nil {
		return false, err
	}
	for _, e := range idx.Entries {
		if e.Name == rel && e.Stage != 0 {
			return true, nil
		}
	}
	return false, nil
}
