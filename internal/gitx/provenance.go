package gitx

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Head returns the commit HEAD points at, read from the git directory's
// files without opening the repository; "" when there is none yet (a new
// repository) or it cannot be read.
func (r *Repo) Head() string {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(data))
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok {
		return validHash(head)
	}
	for _, dir := range []string{r.GitDir, r.CommonDir} {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return validHash(strings.TrimSpace(string(data)))
		}
	}
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if hash, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return validHash(hash)
		}
	}
	return ""
}

func validHash(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return s
}

// CommittedAt returns, of the given files (slash paths relative to the
// root, with their content in the working tree), those whose content is
// exactly their blob in commit head: provenance a reader can check with
// git show head:path. Files changed since, or untracked, are left out.
func (r *Repo) CommittedAt(head string, files map[string][]byte) map[string]bool {
	out := map[string]bool{}
	if head == "" || len(files) == 0 {
		return out
	}
	repo, err := git.PlainOpenWithOptions(r.Root, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return out
	}
	c, err := repo.CommitObject(plumbing.NewHash(head))
	if err != nil {
		return out
	}
	tree, err := c.Tree()
	if err != nil {
		return out
	}
	for path, content := range files {
		e, err := tree.FindEntry(path)
		if err != nil {
			continue
		}
		if e.Hash == plumbing.ComputeHash(plumbing.BlobObject, content) {
			out[path] = true
		}
	}
	return out
}

// FileAt returns the content of the slash path rel in each of commits
// (full hashes) of the repository at root, in their order, opening the
// repository once; nil for a commit that does not have it.
func FileAt(root, rel string, commits ...string) ([][]byte, error) {
	r, err := open(root)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(commits))
	for i, commit := range commits {
		c, err := r.CommitObject(plumbing.NewHash(commit))
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", commit, err)
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("read the tree of %s: %w", commit, err)
		}
		f, err := tree.File(rel)
		if errors.Is(err, object.ErrFileNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", rel, commit, err)
		}
		if out[i], err = readBlob(r, f.Hash); err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", rel, commit, err)
		}
	}
	return out, nil
}
