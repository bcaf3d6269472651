// Package fsx holds the file-system primitives every memctl write goes
// through: atomic replacement of a file and the workspace lock that
// serialises concurrent memctl processes.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrSymlink is returned when a write would go through a symbolic link.
// memctl never writes through links: the target may live outside the
// repository, and replacing the link would silently change what it is.
var ErrSymlink = errors.New("is a symbolic link")

// WriteFile replaces path with data atomically: the bytes go to a temporary
// file in the same directory, which is synced and then renamed over path, so
// a reader sees either the old or the new content and a crash leaves no
// half-written file. An existing file keeps its permission bits; a new one
// gets perm. A symbolic link at path is refused with ErrSymlink.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return writeFile(path, data, perm, true)
}

// WriteDerived replaces path with data atomically but without fsync: for
// caches, which are checked against their source on every read, so a file
// lost in a crash only costs a rebuild, and not waiting for the disk keeps
// every write command fast.
func WriteDerived(path string, data []byte) error {
	return writeFile(path, data, 0o644, false)
}

// WriteDerivedFunc is WriteDerived for content produced by write, which
// gets the temporary file (unbuffered: write it in a few large pieces).
func WriteDerivedFunc(path string, write func(io.Writer) error) error {
	return writeFileFunc(path, 0o644, false, write)
}

// WriteFileFunc is WriteFile for content produced by write, which gets the
// temporary file (buffer it: every Write is a system call). If write fails
// the temporary file is removed and path is left as it was.
func WriteFileFunc(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return writeFileFunc(path, perm, true, write)
}

func writeFile(path string, data []byte, perm fs.FileMode, durable bool) error {
	return writeFileFunc(path, perm, durable, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeFileFunc(path string, perm fs.FileMode, durable bool, write func(io.Writer) error) error {
	st, err := stage(path, perm, durable, write)
	if err != nil {
		return err
	}
	return st.Commit()
}

// Staged is a replacement for a file, written to a temporary beside it
// and not yet renamed into place. A durable one is being synced to disk
// in the background meanwhile, so that the caller can prepare what goes
// with it (a cache of the new content) while the disk works. Exactly one
// of Commit and Abort must be called.
type Staged struct {
	path, tmp string
	f         *os.File
	durable   bool
	synced    chan error
	done      bool // committed or aborted: later calls do nothing
}

// StageFunc writes what write produces to a temporary for path, as
// WriteFileFunc does, and returns it staged: path is unchanged until
// Commit.
func StageFunc(path string, perm fs.FileMode, write func(io.Writer) error) (*Staged, error) {
	return stage(path, perm, true, write)
}

// StageDerivedFunc is StageFunc without the sync, as WriteDerivedFunc.
func StageDerivedFunc(path string, write func(io.Writer) error) (*Staged, error) {
	return stage(path, 0o644, false, write)
}

func stage(path string, perm fs.FileMode, durable bool, write func(io.Writer) error) (*Staged, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("write %s: %w", path, ErrSymlink)
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(filepath.Base(path)))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	st := &Staged{path: path, tmp: tmp.Name(), f: tmp, durable: durable}
	ok := false
	defer func() {
		if !ok { // an error, or a panic in write: nothing left behind
			st.Abort()
		}
	}()
	var w io.Writer = tmp
	if durable {
		w = newSyncAhead(tmp)
	}
	if err := write(w); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		st.synced = make(chan error, 1)
		go func() { st.synced <- tmp.Sync() }()
	}
	ok = true
	return st, nil
}

// Stamp is the staged file's stamp. Its size, modification time and
// inode are path's once committed; the rename moves the change time.
func (st *Staged) Stamp() (Stamp, error) { return FileStamp(st.f) }

// Commit waits for the sync, then renames the staged file over path.
// On failure path is left as it was and the temporary is removed. Once
// Commit or Abort has run, Commit and Abort do nothing.
func (st *Staged) Commit() error {
	if st.done {
		return nil
	}
	st.done = true
	if err := st.waitSync(); err != nil {
		st.discard()
		return fmt.Errorf("write %s: %w", st.path, err)
	}
	if err := st.f.Close(); err != nil {
		_ = os.Remove(st.tmp)
		return fmt.Errorf("write %s: %w", st.path, err)
	}
	if err := os.Rename(st.tmp, st.path); err != nil {
		_ = os.Remove(st.tmp)
		return fmt.Errorf("write %s: %w", st.path, err)
	}
	if st.durable {
		syncDir(filepath.Dir(st.path))
	}
	return nil
}

// Abort removes the staged file; path is left as it was.
func (st *Staged) Abort() {
	if st.done {
		return
	}
	st.done = true
	_ = st.waitSync()
	st.discard()
}

// waitSync waits for the background sync, once.
func (st *Staged) waitSync() error {
	if st.synced == nil {
		return nil
	}
	err := <-st.synced
	st.synced = nil
	return err
}

func (st *Staged) discard() {
	_ = st.f.Close()
	_ = os.Remove(st.tmp)
}

// tempInfix is what a temporary's name has between its file's name and
// CreateTemp's random digits.
const tempInfix = ".tmp-"

// tempPattern is CreateTemp's pattern for the temporary of the file named
// base: dot-named, so that no reader lists it.
func tempPattern(base string) string { return "." + base + tempInfix + "*" }

// IsTemp reports whether a file name is that of a temporary an atomic
// write left behind (.<name>.tmp-<digits>): the writer was killed
// between creating it and renaming it into place. Such a file holds a
// half-written copy, never the only copy of anything.
func IsTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tempInfix)
	if i < 2 {
		return false
	}
	digits := name[i+len(tempInfix):]
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CreateFile writes data to path only if nothing exists there yet. It
// reports whether it wrote. Like WriteFile it is atomic, so a concurrent
// reader never sees a partial file.
func CreateFile(path string, data []byte, perm fs.FileMode) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	if err := WriteFile(path, data, perm); err != nil {
		return false, err
	}
	return true, nil
}

// MkdirAll creates dir and its parents and reports whether dir was new.
func MkdirAll(dir string) (bool, error) {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return false, fmt.Errorf("create directory %s: a file is in the way", dir)
		}
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create directory %s: %w", dir, err)
	}
	return true, nil
}

// syncDir makes a rename durable on file systems that need the directory
// synced too. Failure is ignored: some platforms cannot sync directories and
// the rename itself has already happened.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
