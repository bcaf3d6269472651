//go:build unix

package fsx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps f's first size bytes read-only and shared.
func mapFile(f *os.File, size int) ([]byte, error) {
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return b, nil
}
