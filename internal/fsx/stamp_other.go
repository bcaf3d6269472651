//go:build !unix

package fsx

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Stamps lists the regular files of dir (not following links) with their
// stamps, in directory order.
func Stamps(dir string) ([]Stamp, error) { return stamps(dir, false) }

// StampsFollow is Stamps that also lists the links to regular files, each
// with the stamp of the file it names: what a reader that opens every name
// of the directory reads (ledger.Load does).
func StampsFollow(dir string) ([]Stamp, error) { return stamps(dir, true) }

func stamps(dir string, follow bool) ([]Stamp, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Stamp, 0, len(ents))
	for _, e := range ents {
		var fi fs.FileInfo
		switch {
		case e.Type().IsRegular():
			fi, err = e.Info()
		case follow && e.Type()&fs.ModeSymlink != 0:
			fi, err = os.Stat(filepath.Join(dir, e.Name()))
		default:
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, Stamp{Name: e.Name(), Size: fi.Size(), ModTime: fi.ModTime().UnixNano()})
	}
	return out, nil
}

// StatStamp is the stamp of the file or directory at path, following
// links: what a reader that opens path reads. This platform gives no
// change time or inode.
func StatStamp(path string) (Stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// FileStamp is the stamp of an open file. This platform gives no change
// time or inode.
func FileStamp(f *os.File) (Stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}
