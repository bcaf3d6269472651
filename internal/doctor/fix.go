package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// fixer is what repairs share: the workspace, where backups go, and the
// environment.
type fixer struct {
	repo *gitx.Repo
	ws   *config.Workspace
	env  Env
}

// backupDir is where doctor keeps what it moves or replaces: under the
// git directory (shared by worktrees), so that nothing there is
// committed; hooks install keeps its backups there too.
func backupDir(repo *gitx.Repo) string {
	return filepath.Join(repo.CommonDir, "memctl", "backups")
}

// shown is a path as the report names it: relative to the root when it
// is under it.
func (f *fixer) shown(abs string) string {
	if r, err := filepath.Rel(f.repo.Root, abs); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return abs
}

// backup copies the file at rel (relative to the root), as it is, to the
// backup directory, keeping its mode, and returns where, as shown. A
// file that does not exist needs none ("").
func (f *fixer) backup(rel string) (string, error) {
	src := filepath.Join(f.repo.Root, filepath.FromSlash(rel))
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(backupDir(f.repo), filepath.FromSlash(rel))
	if _, err := fsx.MkdirAll(filepath.Dir(dst)); err != nil {
		return "", err
	}
	dst = fsx.FreeName(dst) // never over an earlier backup
	if err := fsx.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("back up %s: %w", rel, err)
	}
	if err := os.Chmod(dst, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("back up %s: %w", rel, err)
	}
	return f.shown(dst), nil
}

// repair runs the fixes of the checks that need one. The lock holder
// files come first and without the workspace lock (they are judged under
// the lock they name, taken with one try); the rest under the workspace
// lock. It returns each repaired check by key, with what was done or
// why it could not be.
func repair(ctx context.Context, repo *gitx.Repo, env Env, checks []Check) (map[string]Check, error) {
	ws, _ := loadWorkspace(repo, &collector{})
	f := &fixer{repo: repo, ws: ws, env: env}
	done := map[string]Check{}
	run := func(c Check) {
		did, err := c.fix(ctx, f)
		c.fix = nil
		if err != nil {
			c.FixError = err.Error()
		} else {
			c.Fixed, c.Status = did, OK
		}
		done[key(c.ID, c.File)] = c
	}
	var locked []Check
	for _, c := range checks {
		switch {
		case c.fix == nil || c.Status == OK:
		case c.ID == IDLock:
			run(c)
		default:
			locked = append(locked, c)
		}
	}
	if len(locked) == 0 {
		return done, nil
	}
	l, err := env.Lock(ctx, ws)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	for _, c := range locked {
		run(c)
	}
	return done, nil
}
