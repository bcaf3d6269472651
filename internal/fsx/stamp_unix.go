//go:build unix

package fsx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Stamps lists the regular files of dir (not following links) with their
// stamps, in directory order. Each file costs one fstatat relative to the
// open directory: no path is resolved again from the root, which is most
// of an lstat's cost on a deep path.
func Stamps(dir string) ([]Stamp, error) {
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
		if !e.Type().IsRegular() {
			continue
		}
		if err := unix.Fstatat(fd, e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // gone since the directory was read
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		out = append(out, Stamp{Name: e.Name(), Size: st.Size, ModTime: st.Mtim.Nano(), Ino: uint64(st.Ino)})
	}
	return out, nil
}
