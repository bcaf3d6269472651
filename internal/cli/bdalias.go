package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// bdAlias is the link memctl init --bd-alias DIR makes: DIR/bd pointing
// at the memctl binary, so that "bd …" runs memctl in bd mode.
type bdAlias struct {
	path, target string
}

// planBdAlias checks, before init writes anything, that DIR/bd can be
// made: DIR is a directory, and DIR/bd is absent or already a link to
// this memctl. Anything else there is refused unless force replaces it.
func planBdAlias(dir string, force bool) (*bdAlias, bool, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, false, fmt.Errorf("--bd-alias: find the memctl binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, false, usagef(fmt.Errorf("--bd-alias %q: not a directory; name one on your PATH, such as ~/.local/bin", dir))
	}
	a := &bdAlias{path: filepath.Join(dir, "bd"), target: exe}
	if target, err := os.Readlink(a.path); err == nil && target == exe {
		return a, false, nil // there already
	}
	if _, err := os.Lstat(a.path); err == nil && !force {
		return nil, false, withHint(fmt.Errorf("--bd-alias: %s exists and is not a link to this memctl", a.path),
			"remove it or move it aside (it may be bd itself), or add --force to replace it")
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	return a, true, nil
}

// make creates the link, replacing what is there (planBdAlias allowed it)
// by renaming a new link over it, so no moment lacks a bd.
func (a *bdAlias) make() error {
	tmp := filepath.Join(filepath.Dir(a.path), fmt.Sprintf(".bd.memctl-%d", os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(a.target, tmp); err != nil {
		return fmt.Errorf("--bd-alias: %w", err)
	}
	if err := os.Rename(tmp, a.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--bd-alias: %w", err)
	}
	return nil
}
