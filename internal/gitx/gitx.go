// Package gitx is memctl's window on git, through go-git: finding the
// repository that holds the working directory, its git directories, and (as
// later layers need them) configuration and commits.
package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
)

// ErrNotRepo is returned by Find when no git repository holds the directory.
var ErrNotRepo = errors.New("not inside a git repository")

// Repo locates one working tree of a git repository.
type Repo struct {
	// Root is the top directory of the working tree.
	Root string
	// GitDir is this working tree's git directory: Root/.git, or for a
	// linked worktree the directory its .git file points at.
	GitDir string
	// CommonDir is the git directory shared by all worktrees of the
	// repository; it equals GitDir outside linked worktrees.
	CommonDir string
}

// Find returns the repository whose working tree contains dir, looking in
// dir and its parents. Linked worktrees (`git worktree add`) are found too.
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find git repository from %s: %w", dir, err)
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w", abs, ErrNotRepo)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository from %s: %w", abs, err)
	}
	wt, err := r.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return nil, fmt.Errorf("%s: %w (the repository is bare; run memctl in a working tree)", abs, ErrNotRepo)
	}
	if err != nil {
		return nil, fmt.Errorf("open working tree from %s: %w", abs, err)
	}
	root := wt.Filesystem.Root()
	gitDir, err := resolveGitDir(root)
	if err != nil {
		return nil, err
	}
	return &Repo{Root: root, GitDir: gitDir, CommonDir: commonDir(gitDir)}, nil
}

// resolveGitDir follows root/.git, which is a directory in a plain clone and
// a "gitdir: <path>" file in a linked worktree or submodule.
func resolveGitDir(root string) (string, error) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", dotgit, err)
	}
	if fi.IsDir() {
		return dotgit, nil
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", dotgit, err)
	}
	line := strings.TrimSpace(string(b))
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("read %s: want a line \"gitdir: <path>\", got %q", dotgit, line)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	return filepath.Clean(target), nil
}

// commonDir reads gitDir/commondir, which linked worktrees have; without it
// the git directory is its own common directory.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	dir := strings.TrimSpace(string(b))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return filepath.Clean(dir)
}

// Identity returns the user.name and user.email git would use in the
// repository at root: the repository's config over the user's global one.
// Missing values are "".
func Identity(root string) (name, email string) {
	r, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", ""
	}
	cfg, err := r.ConfigScoped(gitconfig.GlobalScope)
	if err != nil {
		return "", ""
	}
	return cfg.User.Name, cfg.User.Email
}
