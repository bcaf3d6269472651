//go:build !linux

package fsx

import (
	"io"
	"os"
)

// newSyncAhead is the file itself where the kernel has no way to start a
// write-back early (sync_file_range is Linux's).
func newSyncAhead(f *os.File) io.Writer { return f }
