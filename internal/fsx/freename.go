package fsx

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
)

// FreeName is path, or path with ".1", ".2"… added, whichever names no
// file yet: where a backup goes so that it never replaces an earlier one.
func FreeName(path string) string {
	dst := path
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			return dst
		}
		dst = path + "." + strconv.Itoa(i)
	}
}
