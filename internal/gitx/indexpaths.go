package gitx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// IndexPaths lists the paths of the entries of the git index at gitDir
// (the stage-0 and unmerged ones alike, slash-separated, relative to the
// worktree root), in index order. It reads versions 2, 3 and 4 of the
// format with SHA-1 or SHA-256 object names (oidSize 20 or 32). An index
// it cannot read (another version, a split index, a file being written)
// is an error: the caller asks git instead.
func IndexPaths(gitDir string, oidSize int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		return nil, err
	}
	return parseIndexPaths(data, oidSize)
}

// EachIndexPath calls fn with the path of each entry of data, a git
// index (the file gitDir/index), as IndexPaths lists them. The bytes are
// valid only during the call: fn copies what it keeps, so an index of
// thousands of entries costs no allocation for the paths a caller passes
// over (and data may be a read-only mapping of the file).
func EachIndexPath(data []byte, oidSize int, fn func(path []byte)) error {
	return eachIndexPath(data, oidSize, fn)
}

func parseIndexPaths(data []byte, oidSize int) ([]string, error) {
	var out []string
	err := eachIndexPath(data, oidSize, func(p []byte) { out = append(out, string(p)) })
	return out, err
}

var errIndex = errors.New("git index: unexpected format")

func eachIndexPath(data []byte, oidSize int, fn func([]byte)) error {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return errIndex
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("git index: version %d", version)
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the
	// object name, then 16 bits of flags.
	fixed := 40 + oidSize + 2
	off := 12
	var prev []byte
	for range n {
		start := off
		if off+fixed > len(data) {
			return errIndex
		}
		flags := binary.BigEndian.Uint16(data[off+fixed-2 : off+fixed])
		off += fixed
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			if version < 3 || off+2 > len(data) {
				return errIndex
			}
			off += 2
		}
		if version == 4 {
			// The path is the previous one less a varint count of bytes
			// from its end, plus a NUL-terminated suffix.
			strip, k := binary.Uvarint(data[off:])
			if k <= 0 || strip > uint64(len(prev)) {
				return errIndex
			}
			off += k
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return errIndex
			}
			prev = append(prev[:len(prev)-int(strip)], data[off:off+end]...)
			off += end + 1
			fn(prev)
			continue
		}
		end := bytes.IndexByte(data[off:], 0)
		if end < 0 {
			return errIndex
		}
		fn(data[off : off+end])
		off += end + 1
		// Versions 2 and 3 pad each entry with NULs to a multiple of 8.
		if pad := (off - start) % 8; pad != 0 {
			off += 8 - pad
		}
		if off > len(data) {
			return errIndex
		}
	}
	return nil
}
