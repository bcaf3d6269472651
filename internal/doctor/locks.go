package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/hooks"
	"github.com/memctl/memctl/internal/index"
)

// locks checks the workspace lock and the index lock. The operating
// system lets go of a lock when its holder dies, so a lock is never
// stale; its holder file can be: one naming a process of this host that
// is gone while nobody holds the lock (a writer killed before it could
// remove it). That is a problem Fix clears, judging again under the lock
// taken with one try, so that a live holder is never disturbed. A lock
// held longer than opts.LockAge is a warning: its holder may be stuck.
func (c *collector) locks(ws *config.Workspace, env Env, opts Options) {
	f := &fixer{repo: ws.Repo}
	paths := []struct{ name, path string }{{"the workspace lock", config.LockPath(ws.Repo)}}
	if env.IndexDir != nil {
		paths = append(paths, struct{ name, path string }{"the index lock", index.LockPath(env.IndexDir(ws))})
	}
	for _, p := range paths {
		shown := f.shown(p.path)
		st, err := fsx.InspectLock(p.path)
		if err != nil {
			c.add(Check{ID: IDLock, Status: Problem, File: shown, Message: err.Error(), Hint: "make the git directory readable and writable"})
			continue
		}
		holder := "nothing readable"
		if h := st.Holder; h != nil {
			holder = fmt.Sprintf("pid %d (%s, since %s)", h.PID, h.Command, h.Since.UTC().Format(time.RFC3339))
			if h.Host != "" && st.OtherHost {
				holder = fmt.Sprintf("pid %d on %s (%s, since %s)", h.PID, h.Host, h.Command, h.Since.UTC().Format(time.RFC3339))
			}
		}
		path := p.path
		switch {
		case st.Stale:
			c.add(Check{ID: IDLock, Status: Problem, File: shown + ".holder",
				Message: staleMessage(p.name, holder, st.Holder != nil),
				Hint:    "memctl doctor --fix removes the holder file (memctl itself ignores it)", Fixable: true,
				fix: func(context.Context, *fixer) (string, error) {
					removed, err := fsx.ClearStale(path)
					if err != nil {
						return "", err
					}
					if !removed {
						return "", fmt.Errorf("%s is held again, or its holder file changed: left alone", p.name)
					}
					return "removed the stale holder file", nil
				}})
		case st.Held && st.Holder != nil && !st.OtherHost && !st.Alive:
			c.add(Check{ID: IDLock, Status: Warn, File: shown,
				Message: fmt.Sprintf("%s is held, and its holder file names %s, which is gone: a process it started may still hold it", p.name, holder),
				Hint:    "find the process that has " + shown + " open (lsof or fuser) and let it finish; doctor never breaks a lock someone holds"})
		case st.Held && st.Holder != nil && opts.Now.Sub(st.Holder.Since) > opts.LockAge:
			c.add(Check{ID: IDLock, Status: Warn, File: shown,
				Message: fmt.Sprintf("%s has been held by %s for %s: it may be stuck", p.name, holder, opts.Now.Sub(st.Holder.Since).Round(time.Second)),
				Hint:    "if that process is stuck, end it (kill " + strconv.Itoa(st.Holder.PID) + "); the lock goes with it. doctor never breaks a lock someone holds"})
		case st.Held:
			msg := p.name + " is held by another process, writing now"
			if st.Holder != nil {
				msg = p.name + " is held by " + holder + ", writing now"
			}
			c.add(Check{ID: IDLock, Status: OK, File: shown, Message: msg})
		case st.HolderExists && st.OtherHost:
			c.add(Check{ID: IDLock, Status: Warn, File: shown + ".holder",
				Message: fmt.Sprintf("nobody here holds %s; its holder file names %s, which cannot be checked from this host", p.name, holder),
				Hint:    "if that process is gone, delete the holder file by hand"})
		default:
			c.add(Check{ID: IDLock, Status: OK, File: shown, Message: p.name + " is free"})
		}
	}
}

// temps looks for temporaries of atomic writes (.<name>.tmp-<digits>)
// where memctl writes in the working tree: a killed writer leaves them,
// and git add -A would commit them. Fix moves them (never deletes) under
// the git directory's backups.
func (c *collector) temps(ws *config.Workspace) {
	var found []string
	visit := func(dir string, deep bool) {
		root := ws.Path(dir)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // a directory that is not there has no temporaries
			}
			if d.IsDir() {
				if p != root && !deep {
					return filepath.SkipDir
				}
				return nil
			}
			if fsx.IsTemp(d.Name()) {
				rel, _ := filepath.Rel(ws.Root, p)
				found = append(found, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	visit(".", false)
	visit(config.LedgerDir, true)
	visit(config.BeadsDir, true)
	// The agent runtimes' settings, which hooks install writes.
	place := hooks.Place{Scope: hooks.Project, Root: ws.Root}
	dirs := map[string]bool{}
	for _, rt := range hooks.Runtimes {
		_, settings := rt.File(place)
		_, mcp := rt.MCPFile(place)
		for _, f := range []string{settings, mcp} {
			if d := path.Dir(f); d != "." {
				dirs[d] = true
			}
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		visit(d, false)
	}
	slices.Sort(found)
	found = slices.Compact(found)
	if len(found) == 0 {
		c.add(Check{ID: IDTempFiles, Status: OK, Message: "no temporaries of interrupted writes"})
		return
	}
	for _, rel := range found {
		c.add(Check{ID: IDTempFiles, Status: Problem, File: rel,
			Message: "a temporary an interrupted write left (a half-written copy, never the only one): git add -A would commit it",
			Hint:    "memctl doctor --fix moves it under .git/memctl/backups (nothing is deleted)", Fixable: true,
			fix: func(_ context.Context, f *fixer) (string, error) { return f.moveAway(rel) }})
	}
}

// moveAway moves the file at rel into the backup directory, at the same
// relative path; an existing one there is not replaced (a number is
// added).
func (f *fixer) moveAway(rel string) (string, error) {
	src := filepath.Join(f.repo.Root, filepath.FromSlash(rel))
	dst := filepath.Join(backupDir(f.repo), filepath.FromSlash(rel))
	if _, err := fsx.MkdirAll(filepath.Dir(dst)); err != nil {
		return "", err
	}
	dst = fsx.FreeName(dst)
	if err := os.Rename(src, dst); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(src); errors.Is(serr, fs.ErrNotExist) {
				return "gone since the check (its writer finished)", nil
			}
		}
		return "", fmt.Errorf("move %s: %w", rel, err)
	}
	return "moved to " + f.shown(dst), nil
}

// staleMessage says a lock's holder file outlived its holder.
func staleMessage(name, holder string, readable bool) string {
	if !readable {
		return fmt.Sprintf("stale: nobody holds %s, and its holder file names nothing readable (left by a process killed while writing it)", name)
	}
	return fmt.Sprintf("stale: nobody holds %s, but its holder file names %s, which is gone (killed before it could clean up)", name, holder)
}
