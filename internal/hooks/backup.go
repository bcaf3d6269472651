package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/fsx"
)

// backupSuffix names the backup of a file kept next to it:
// <file>.memctl-backup (the global scope, where there is no repository).
const backupSuffix = ".memctl-backup"

// current is a settings file as install found it.
type current struct {
	data    []byte
	existed bool
	perm    fs.FileMode // its permission bits, which its backup keeps
	skip    string      // why it is left alone (a symbolic link); "" to go on
}

// readSettings reads a settings file: its bytes, whether it exists and its
// mode, or why it is skipped (a symbolic link), or an error.
func readSettings(abs, shown string) (current, error) {
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return current{}, nil
	case err != nil:
		return current{}, fmt.Errorf("read %s: %w", shown, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return current{existed: true, skip: shown + " is a symbolic link; memctl does not write through links: change its target by hand (memctl help agents lists the entries)"}, nil
	case !fi.Mode().IsRegular():
		return current{}, fmt.Errorf("read %s: not a regular file", shown)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return current{}, fmt.Errorf("read %s: %w", shown, err)
	}
	return current{data: data, existed: true, perm: fi.Mode().Perm()}, nil
}

// backup keeps cur, the file at abs as it was, before memctl changes it,
// and returns where, as shown. One backup per file, the last: the file as
// it was before memctl's last change. A project file's backup goes under
// p.BackupDir, in the git directory, so that it never shows up in the
// working tree to be committed; a global file's (or one of a Place
// without BackupDir) next to it, as <file>.memctl-backup. The backup has
// the file's permission bits: a private file's backup stays private.
func (p Place) backup(abs, shown string, cur current) (string, error) {
	dst, dstShown := abs+backupSuffix, shown+backupSuffix
	if p.Scope == Project && p.BackupDir != "" {
		rel, err := filepath.Rel(p.Root, abs)
		if err != nil || !filepath.IsLocal(rel) {
			return "", fmt.Errorf("back up %s: not under the repository's root", shown)
		}
		dst, dstShown = filepath.Join(p.BackupDir, rel), filepath.Join(p.BackupDir, rel)
		if r, err := filepath.Rel(p.Root, dst); err == nil && filepath.IsLocal(r) {
			dstShown = filepath.ToSlash(r)
		}
		if _, err := fsx.MkdirAll(filepath.Dir(dst)); err != nil {
			return "", err
		}
	}
	if err := fsx.WriteFile(dst, cur.data, cur.perm); err != nil {
		return "", fmt.Errorf("back up %s: %w", shown, err)
	}
	// fsx keeps the mode of a backup already there, which an older memctl
	// wrote 0644 whatever the file's.
	if err := os.Chmod(dst, cur.perm); err != nil {
		return "", fmt.Errorf("back up %s: %w", shown, err)
	}
	return dstShown, nil
}

// newFileMode is the mode of a settings file memctl creates: a project's
// is committed and readable by all; a global one is the user's alone, as
// it may come to hold tokens (an MCP server's environment).
func (p Place) newFileMode() fs.FileMode {
	if p.Scope == Global {
		return 0o600
	}
	return 0o644
}
