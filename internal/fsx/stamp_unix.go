//go:build unix

package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Stamps lists the regular files of dir (not following links) with their
// stamps, in directory order. Each file costs one fstatat relative to the
// open directory: no path is resolved again from the root, which is most
// of an lstat's cost on a deep path.
func Stamps(dir string) ([]Stamp, error) { return stamps(dir, false) }

// StampsFollow is Stamps that also lists the links to regular files, each
// with the stamp of the file it names: what a reader that opens every name
// of the directory reads (ledger.Load does).
func StampsFollow(dir string) ([]Stamp, error) { return stamps(dir, true) }

func stamps(dir string, follow bool) ([]Stamp, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", dir, err)
	}
	fd := int(d.Fd())
	out := make([]Stamp, 0, len(ents))
	var st unix.Stat_t
	for _, e := range ents {
		flags := unix.AT_SYMLINK_NOFOLLOW
		switch {
		case e.Type().IsRegular():
		case follow && e.Type()&fs.ModeSymlink != 0:
			flags = 0
		default:
			continue
		}
		if err := unix.Fstatat(fd, e.Name(), &st, flags); err != nil {
			continue // gone since the directory was read, or a dangling link
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		out = append(out, stampOf(e.Name(), &st))
	}
	return out, nil
}

// StatStamp is the stamp of the file or directory at path, following
// links: what a reader that opens path reads.
func StatStamp(path string) (Stamp, error) {
	var st unix.Stat_t
	for {
		err := unix.Stat(path, &st)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return Stamp{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		return stampOf("", &st), nil
	}
}

// FileStamp is the stamp of an open file.
func FileStamp(f *os.File) (Stamp, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(int(f.Fd()), &st)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return Stamp{}, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
		}
		return stampOf("", &st), nil
	}
}

func stampOf(name string, st *unix.Stat_t) Stamp {
	return Stamp{Name: name, Size: st.Size, ModTime: st.Mtim.Nano(), ChangeTime: st.Ctim.Nano(), Ino: uint64(st.Ino)}
}
