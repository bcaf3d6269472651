package gitx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Commit is one commit of a history walk.
type Commit struct {
	Hash        string // full hex
	Parents     int    // more than one for a merge
	AuthorName  string
	AuthorEmail string
	AuthorTime  time.Time
	CommitTime  time.Time
}

// FileChange is one file a commit changed against its first parent: From
// and To are the blob hashes before and after ("" where the file was
// absent).
type FileChange struct {
	Path     string // slash path from the root of the tree
	From, To string
}

// History reads a repository's commits and blobs for a log of some of
// its paths. It keeps the last blob read for each path, because a walk
// reads every version of a file twice: as a commit's new version and as
// its child's old one. Close releases its files.
type History struct {
	store   *filesystem.Storage
	head    string
	shallow map[plumbing.Hash]bool
	last    map[string]blobCache
	packs   packBlobs
}

type blobCache struct {
	hash string
	data []byte
}

// OpenHistory opens the repository of r for a history walk: its objects
// in the common git directory, with the pack files kept open (go-git
// otherwise opens a pack file for every object it reads); HEAD is this
// working tree's. Commits and trees go through go-git's cache of decoded
// objects, kept small (historyObjectCache): blobs are read from the packs
// by packBlobs, which keeps the versions it resolved.
func (r *Repo) OpenHistory() (*History, error) {
	h := &History{last: map[string]blobCache{}, head: r.Head(), packs: packBlobs{dir: r.CommonDir}}
	var err error
	if h.shallow, err = readShallow(r.CommonDir); err != nil {
		return nil, err
	}
	h.store = filesystem.NewStorageWithOptions(osfs.New(r.CommonDir), cache.NewObjectLRU(historyObjectCache),
		filesystem.Options{KeepDescriptors: true, ExclusiveAccess: true})
	return h, nil
}

// historyObjectCache is the budget of go-git's object cache in a walk: the
// commits and the trees on the way to the followed paths, and blobs that
// are not in a pack (loose ones), each read once.
const historyObjectCache = 16 * cache.MiByte

// Close closes the pack files the walk kept open.
func (h *History) Close() error { return errors.Join(h.packs.close(), h.store.Close()) }

// readShallow reads the commits a shallow clone has without their
// parents, from the git directory's shallow file; none when it is absent.
func readShallow(gitDir string) (map[plumbing.Hash]bool, error) {
	f, err := os.Open(filepath.Join(gitDir, "shallow"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the shallow commits: %w", err)
	}
	defer f.Close()
	out := map[plumbing.Hash]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if h := validHash(strings.TrimSpace(sc.Text())); h != "" {
			out[plumbing.NewHash(h)] = true
		}
	}
	return out, sc.Err()
}

// WalkResult says how a walk ended.
type WalkResult struct {
	// Complete: the walk reached the first commit (fn did not stop it).
	Complete bool
	// CutAt is, in a shallow clone, the commit whose parent the clone does
	// not have: the walk ends before it, because what it changed cannot be
	// known. "" otherwise.
	CutAt string
}

// WalkFirstParent visits the commits from HEAD along first parents,
// newest first, calling fn for each commit that changed a file at or
// under one of prefixes (slash paths: a file or a directory) against its
// first parent (against nothing for the first commit), with the changed
// files sorted by path. A merge is compared with its first parent, so it
// shows what it brought into the branch. fn returns false to stop. A
// repository with no commits has nothing to visit. Subtrees with the same
// hash on both sides are skipped without being read.
func (h *History) WalkFirstParent(ctx context.Context, prefixes []string, fn func(Commit, []FileChange) (bool, error)) (WalkResult, error) {
	if h.head == "" {
		return WalkResult{Complete: true}, nil // no commits yet
	}
	c, err := object.GetCommit(h.store, plumbing.NewHash(h.head))
	if err != nil {
		return WalkResult{}, fmt.Errorf("read commit %s: %w", h.head, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return WalkResult{}, fmt.Errorf("read the tree of %s: %w", c.Hash, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return WalkResult{}, err
		}
		if h.shallow[c.Hash] {
			return WalkResult{CutAt: c.Hash.String()}, nil
		}
		var parent *object.Commit
		var ptree *object.Tree
		if len(c.ParentHashes) > 0 {
			if parent, err = object.GetCommit(h.store, c.ParentHashes[0]); err != nil {
				return WalkResult{}, fmt.Errorf("read commit %s, the parent of %s: %w", c.ParentHashes[0], c.Hash, err)
			}
			if ptree, err = parent.Tree(); err != nil {
				return WalkResult{}, fmt.Errorf("read the tree of %s: %w", parent.Hash, err)
			}
		}
		var changes []FileChange
		for _, p := range prefixes {
			if changes, err = h.diffAt(ptree, tree, p, changes); err != nil {
				return WalkResult{}, fmt.Errorf("compare %s with its parent: %w", c.Hash, err)
			}
		}
		if len(changes) > 0 {
			sortChanges(changes)
			more, err := fn(commitOf(c), changes)
			if err != nil || !more {
				return WalkResult{}, err
			}
		}
		if parent == nil {
			return WalkResult{Complete: true}, nil
		}
		c, tree = parent, ptree
	}
}

func commitOf(c *object.Commit) Commit {
	return Commit{
		Hash:        c.Hash.String(),
		Parents:     len(c.ParentHashes),
		AuthorName:  c.Author.Name,
		AuthorEmail: c.Author.Email,
		AuthorTime:  c.Author.When,
		CommitTime:  c.Committer.When,
	}
}

func sortChanges(cs []FileChange) {
	slices.SortFunc(cs, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
}

// entryAt is the entry at slash path p of tree (nil tree: none).
func entryAt(tree *object.Tree, p string) (*object.TreeEntry, error) {
	if tree == nil {
		return nil, nil
	}
	e, err := tree.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	return e, err
}

// diffAt appends the files at or under p that differ between trees a
// (before) and b (after).
func (h *History) diffAt(a, b *object.Tree, p string, out []FileChange) ([]FileChange, error) {
	ea, err := entryAt(a, p)
	if err != nil {
		return out, err
	}
	eb, err := entryAt(b, p)
	if err != nil {
		return out, err
	}
	return h.diffEntries(p, ea, eb, out)
}

// diffEntries compares the entries ea and eb (either may be nil) found at
// path p, descending into directories.
func (h *History) diffEntries(p string, ea, eb *object.TreeEntry, out []FileChange) ([]FileChange, error) {
	if ea != nil && eb != nil && ea.Hash == eb.Hash && ea.Mode == eb.Mode {
		return out, nil
	}
	if from, to := blobHash(ea), blobHash(eb); from != to {
		out = append(out, FileChange{Path: p, From: from, To: to})
	}
	da, err := h.dir(ea)
	if err != nil {
		return out, err
	}
	db, err := h.dir(eb)
	if err != nil {
		return out, err
	}
	if da == nil && db == nil {
		return out, nil
	}
	names := map[string][2]*object.TreeEntry{}
	for _, t := range []struct {
		tree *object.Tree
		side int
	}{{da, 0}, {db, 1}} {
		if t.tree == nil {
			continue
		}
		for i := range t.tree.Entries {
			e := &t.tree.Entries[i]
			pair := names[e.Name]
			pair[t.side] = e
			names[e.Name] = pair
		}
	}
	for name, pair := range names {
		if out, err = h.diffEntries(path.Join(p, name), pair[0], pair[1], out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// dir is the tree of a directory entry; nil for nil or a file.
func (h *History) dir(e *object.TreeEntry) (*object.Tree, error) {
	if e == nil || e.Mode != filemode.Dir {
		return nil, nil
	}
	return object.GetTree(h.store, e.Hash)
}

// blobHash is the hash of a file entry, "" for a missing entry or a
// directory.
func blobHash(e *object.TreeEntry) string {
	if e == nil || e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
		return ""
	}
	return e.Hash.String()
}

// Blob returns the content of the blob hash, read for the file at path
// (which keeps the last blob of each path, for the walk's next commit).
// The content may be shared with later calls: it must not be modified.
func (h *History) Blob(path, hash string) ([]byte, error) {
	if hash == "" {
		return nil, nil
	}
	if c, ok := h.last[path]; ok && c.hash == hash {
		return c.data, nil
	}
	data, err := h.packs.read(plumbing.NewHash(hash))
	if errors.Is(err, errNotInPacks) {
		data, err = readStoredBlob(h.store, plumbing.NewHash(hash))
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at blob %s: %w", path, hash, err)
	}
	h.last[path] = blobCache{hash: hash, data: data}
	return data, nil
}

// readStoredBlob reads a blob from a store, in one allocation of its size.
func readStoredBlob(s *filesystem.Storage, h plumbing.Hash) ([]byte, error) {
	blob, err := object.GetBlob(s, h)
	if err != nil {
		return nil, err
	}
	return blobBytes(blob)
}
