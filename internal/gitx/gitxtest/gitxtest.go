// Package gitxtest makes git repositories for the tests of gitx and of
// the packages above it: states that are awkward to reach with the git
// command (StoppedMerge), and real repositories and clones made with it.
package gitxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// Isolate keeps the git commands a test starts, directly or through the
// code under test, away from the user's and the system's git config and
// gives them a fixed identity. It sets environment variables, so a test
// that calls it cannot run in parallel.
func Isolate(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		t.Setenv(k, v)
	}
}

// Git runs the git binary in dir and returns what it printed on stdout;
// the test fails when git does.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out)
}

// Write writes the file at the slash path rel under root, making its
// directories.
func Write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Shared makes a bare repository whose main branch holds one commit with
// files, and returns its path; clone it with Git(t, dir, "clone", "-q",
// remote, name). It needs the git binary (and Isolate).
func Shared(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	Git(t, dir, "init", "-q", "--bare", "-b", "main", remote)
	seed := filepath.Join(dir, "seed")
	Git(t, dir, "clone", "-q", remote, seed)
	for rel, s := range files {
		Write(t, seed, rel, s)
	}
	Git(t, seed, "add", "-A")
	Git(t, seed, "commit", "-q", "-m", "seed")
	Git(t, seed, "push", "-q", "origin", "HEAD:main")
	return remote
}
