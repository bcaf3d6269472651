// Package gitxtest makes git repositories in states that are awkward to
// reach with the git command, for the tests of gitx and of the packages
// that read the index through it.
package gitxtest

import (
	"os"
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// StoppedMerge makes a repository as a merge leaves it when it stops: its
// index holds each path of unmerged at stages 1 to 3 (base, ours, theirs;
// "" is a side that lacks the file) and each path of merged at stage 0,
// and its working tree holds ours. It returns the repository's root.
func StoppedMerge(t testing.TB, unmerged map[string][3]string, merged map[string]string) string {
	t.Helper()
	root := t.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	blob := func(s string) plumbing.Hash {
		obj := r.Storer.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, err := obj.Writer()
		if err == nil {
			_, err = w.Write([]byte(s))
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.Storer.SetEncodedObject(obj)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	write := func(path, s string) {
		p := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := &index.Index{Version: 2}
	for path, s := range merged {
		idx.Entries = append(idx.Entries, &index.Entry{Name: path, Hash: blob(s), Mode: filemode.Regular})
		write(path, s)
	}
	for path, stages := range unmerged {
		for i, s := range stages {
			if s != "" {
				idx.Entries = append(idx.Entries, &index.Entry{Name: path, Hash: blob(s), Mode: filemode.Regular, Stage: index.Stage(i + 1)})
			}
		}
		if stages[1] != "" {
			write(path, stages[1])
		}
	}
	if err := r.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	return root
}
