package fsx

import (
	"errors"
	"io"
	"os"
)

// ErrChanged reports that a mapped file was cut short by another program
// while memctl read it. Running the command again reads the new content.
var ErrChanged = errors.New("a file changed while memctl read it")

// mapThreshold is the size from which ReadMapped maps a file instead of
// reading it: below it, a read into the heap is as cheap as the mapping.
const mapThreshold = 256 << 10

// ReadMapped returns the content of path like os.ReadFile, but maps large
// files read-only instead of copying them into the heap. Reading a
// multi-megabyte file into fresh memory costs a page fault per 4 KiB; a
// mapping of a file in the page cache is faulted in 64 KiB at a time and
// allocates nothing, which is most of the cost of a read-only command on a
// large issues.jsonl.
//
// The bytes must never be written, and they stay valid for the life of the
// process (a mapping is never unmapped: strings point into it). memctl
// replaces files by rename, so its own writes never change mapped bytes; a
// file truncated in place by another program while mapped raises a fault
// that the command turns into an error (see debug.SetPanicOnFault in cli).
func ReadMapped(path string) ([]byte, error) {
	b, _, err := ReadMappedStat(path)
	return b, err
}

// ReadMappedStat is ReadMapped that also returns the file's information,
// taken from the open file (so it describes the bytes returned).
func ReadMappedStat(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := readOpened(f, fi)
	return b, fi, err
}

// readOpened reads the open file f (information fi) as ReadMapped does:
// mapped when it is a large regular file, else read.
func readOpened(f *os.File, fi os.FileInfo) ([]byte, error) {
	size := fi.Size()
	if size >= mapThreshold && size == int64(int(size)) && fi.Mode().IsRegular() {
		if b, err := mapFile(f, int(size)); err == nil {
			return b, nil
		}
	}
	return io.ReadAll(f)
}

// ReadMappedStamp is ReadMapped that also returns the file's stamp, taken
// from the open file (so it describes the bytes returned).
func ReadMappedStamp(path string) ([]byte, Stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Stamp{}, err
	}
	st, err := FileStamp(f)
	if err != nil {
		return nil, Stamp{}, err
	}
	b, err := readOpened(f, fi)
	return b, st, err
}

// ReadSmall is os.ReadFile for the many small files memctl reads in one
// go (proposals), with fewer system calls per file where it can. scratch
// is a buffer the caller reuses from file to file (a few KiB: files that
// fit are read in one call); the result is a fresh copy.
func ReadSmall(path string, scratch []byte) ([]byte, error) { return readSmall(path, scratch) }
