package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is who makes a commit, and when.
type Signature struct {
	Name, Email string
	When        time.Time
}

// CommitFiles commits exactly the files at paths (slash-separated,
// relative to root) as they are in the working tree, on top of HEAD, with
// author and committer sig. Anything else staged stays staged and out of
// the commit. It returns the new commit's hash.
func CommitFiles(root string, paths []string, msg string, sig Signature) (string, error) {
	r, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", fmt.Errorf("open git repository: %w", err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return "", err
	}
	var parents []plumbing.Hash
	var base *object.Tree
	head, err := r.Head()
	switch {
	case err == nil:
		c, err := r.CommitObject(head.Hash())
		if err != nil {
			return "", err
		}
		if base, err = c.Tree(); err != nil {
			return "", err
		}
		parents = []plumbing.Hash{c.Hash}
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		base = &object.Tree{}
	default:
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	blobs := map[string]plumbing.Hash{}
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return "", err
		}
		h, err := writeBlob(r, data)
		if err != nil {
			return "", err
		}
		blobs[p] = h
		// Keep the index in step, so git status shows these files clean.
		if _, err := wt.Add(p); err != nil {
			return "", fmt.Errorf("stage %s: %w", p, err)
		}
	}
	treeHash, err := writeTree(r, base, "", blobs)
	if err != nil {
		return "", err
	}
	s := object.Signature{Name: sig.Name, Email: sig.Email, When: sig.When}
	c := &object.Commit{Author: s, Committer: s, Message: msg, TreeHash: treeHash, ParentHashes: parents}
	obj := r.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", err
	}
	h, err := r.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", err
	}
	// Move the branch HEAD points at (or HEAD itself when detached).
	ref, err := r.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", err
	}
	name := plumbing.HEAD
	if ref.Type() == plumbing.SymbolicReference {
		name = ref.Target()
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference(name, h)); err != nil {
		return "", err
	}
	return h.String(), nil
}

func writeBlob(r *git.Repository, data []byte) (plumbing.Hash, error) {
	obj := r.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.Storer.SetEncodedObject(obj)
}

// writeTree writes base with the blobs (paths relative to prefix) put in,
// creating subtrees as needed, and returns the new tree's hash.
func writeTree(r *git.Repository, base *object.Tree, prefix string, blobs map[string]plumbing.Hash) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if base != nil {
		for _, e := range base.Entries {
			entries[e.Name] = e
		}
	}
	subs := map[string]map[string]plumbing.Hash{}
	for p, h := range blobs {
		rel := strings.TrimPrefix(p, prefix)
		name, rest, nested := strings.Cut(rel, "/")
		if !nested {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
			continue
		}
		if subs[name] == nil {
			subs[name] = map[string]plumbing.Hash{}
		}
		subs[name][prefix+name+"/"+rest] = h
	}
	for name, sub := range subs {
		var subBase *object.Tree
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			t, err := r.TreeObject(e.Hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			subBase = t
		}
		h, err := writeTree(r, subBase, prefix+name+"/", sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	// git orders tree entries by name, directories as if they ended in "/".
	sort.Slice(t.Entries, func(i, j int) bool { return treeKey(t.Entries[i]) < treeKey(t.Entries[j]) })
	obj := r.Storer.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.Storer.SetEncodedObject(obj)
}

func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
