//go:build unix

package fsx

import (
	"bytes"
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

// readSmall reads a whole small file with as few system calls as it
// can: open, one read into scratch and close. os.ReadFile adds a stat and
// registers the file with the runtime's poller, and reading a thousand
// proposal files is mostly system calls. A read of a regular file on Linux
// and the BSDs returns less than was asked only at the end of the file, so
// a read that does not fill scratch has read everything; a larger file is
// read on until a read returns nothing.
func readSmall(path string, scratch []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := scratch[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		short := len(buf)+n < cap(buf)
		buf = buf[:len(buf)+n]
		if n == 0 || short {
			return bytes.Clone(buf), nil
		}
	}
}
