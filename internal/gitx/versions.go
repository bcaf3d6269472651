package gitx

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// VersionCommit is who made a commit and when.
type VersionCommit struct {
	Hash   string // full hex
	Author string // name
	Email  string
	When   time.Time
}

// Short is the commit's hash cut to 7 digits, as git shows it.
func (c VersionCommit) Short() string { return c.Hash[:min(7, len(c.Hash))] }

// Version is one content a file had in history: the blob, the path it had
// and the oldest commit (by commit time) whose tree holds it there.
type Version struct {
	Path   string
	Blob   string
	Commit VersionCommit
}

// BlobHistory is what HistoryVersions walked.
type BlobHistory struct {
	Commits  int       // commits reachable from any ref
	Versions []Version // one per distinct blob, oldest commit first
	repo     *git.Repository
}

// HistoryVersions lists every distinct content (each blob once, however
// many commits and paths hold it) of the regular files under dirs (paths
// relative to the repository root, such as ".ledger") in every commit
// reachable from HEAD or any branch, tag or other ref of the repository
// at root. Each comes with the oldest commit that has it, where it was
// introduced. Subtrees already seen in an older commit are not walked
// again, so an unchanged directory costs one lookup per commit.
//
// keep picks the files (by path) whose versions are listed; a blob is
// "seen" only where it is kept and by its path's extension (the scan of a
// .jsonl file is not a Markdown file's), so content first committed at a
// path not kept and moved to one that is, is still listed there.
func HistoryVersions(root string, keep func(path string) bool, dirs ...string) (*BlobHistory, error) {
	r, err := open(root)
	if err != nil {
		return nil, err
	}
	commits, err := reachable(r)
	if err != nil {
		return nil, err
	}
	h := &BlobHistory{Commits: len(commits), repo: r}
	seenTree := map[treeAt]bool{}
	seenBlob := map[blobAs]bool{}
	for _, c := range commits {
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		info := VersionCommit{Hash: c.Hash.String(), Author: c.Author.Name, Email: c.Author.Email, When: c.Author.When.UTC()}
		for _, d := range dirs {
			sub, err := tree.Tree(d)
			if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("commit %s: %s: %w", c.Hash, d, err)
			}
			if err := walkNew(r.Storer, sub, d, keep, seenTree, seenBlob, func(p string, blob plumbing.Hash) {
				h.Versions = append(h.Versions, Version{Path: p, Blob: blob.String(), Commit: info})
			}); err != nil {
				return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
			}
		}
	}
	return h, nil
}

// walkNew calls fn for each regular file under t (at dir) whose blob has
// not been seen, skipping subtrees seen before.
// treeAt is a tree where it was found: the same tree at another path
// holds files at other paths, which keep may judge otherwise.
type treeAt struct {
	hash plumbing.Hash
	dir  string
}

// blobAs is a blob and the extension of a path it was kept at.
type blobAs struct {
	hash plumbing.Hash
	ext  string
}

func walkNew(s storer.EncodedObjectStorer, t *object.Tree, dir string, keep func(string) bool, seenTree map[treeAt]bool, seenBlob map[blobAs]bool, fn func(string, plumbing.Hash)) error {
	if seenTree[treeAt{t.Hash, dir}] {
		return nil
	}
	seenTree[treeAt{t.Hash, dir}] = true
	for _, e := range t.Entries {
		p := path.Join(dir, e.Name)
		switch {
		case e.Mode == filemode.Dir:
			sub, err := object.GetTree(s, e.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if err := walkNew(s, sub, p, keep, seenTree, seenBlob, fn); err != nil {
				return err
			}
		case e.Mode.IsFile() && e.Mode != filemode.Symlink:
			if k := (blobAs{e.Hash, path.Ext(p)}); keep(p) && !seenBlob[k] {
				seenBlob[k] = true
				fn(p, e.Hash)
			}
		}
	}
	return nil
}

// reachable returns every commit reachable from HEAD and every ref,
// oldest first (by committer time, then hash, so the order is total).
func reachable(r *git.Repository) ([]*object.Commit, error) {
	var starts []plumbing.Hash
	refs, err := r.References()
	if err != nil {
		return nil, err
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference {
			return nil
		}
		h := ref.Hash()
		// An annotated tag points at a tag object: peel it.
		for {
			tag, err := r.TagObject(h)
			if err != nil {
				break
			}
			h = tag.Target
		}
		starts = append(starts, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if head, err := r.Head(); err == nil {
		starts = append(starts, head.Hash())
	}
	seen := map[plumbing.Hash]bool{}
	var out []*object.Commit
	stack := starts
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.CommitObject(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue // a ref to a tree or blob, or a shallow clone's edge
		}
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", h, err)
		}
		out = append(out, c)
		stack = append(stack, c.ParentHashes...)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Committer.When, out[j].Committer.When
		if !a.Equal(b) {
			return a.Before(b)
		}
		return strings.Compare(out[i].Hash.String(), out[j].Hash.String()) < 0
	})
	return out, nil
}

// Read returns the content of a version. It is not safe for concurrent
// use.
func (h *BlobHistory) Read(v Version) ([]byte, error) {
	data, err := readBlob(h.repo, plumbing.NewHash(v.Blob))
	if err != nil {
		return nil, fmt.Errorf("read %s in commit %s: %w", v.Path, v.Commit.Short(), err)
	}
	return data, nil
}
