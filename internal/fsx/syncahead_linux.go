package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncAheadChunk is how much a durable write lets accumulate before it
// asks the kernel to start writing it back.
const syncAheadChunk = 1 << 20

// syncAhead wraps the temporary of a durable write: every syncAheadChunk
// bytes it starts the write-back of what came before (sync_file_range
// without waiting), so that the disk works while the rest is produced and
// the final fsync waits for the tail only.
type syncAhead struct {
	f           *os.File
	off, kicked int64
}

func newSyncAhead(f *os.File) *syncAhead { return &syncAhead{f: f} }

func (s *syncAhead) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	s.off += int64(n)
	if s.off-s.kicked >= syncAheadChunk {
		// Advisory: an error here only means the fsync does all the work.
		_ = unix.SyncFileRange(int(s.f.Fd()), s.kicked, s.off-s.kicked, unix.SYNC_FILE_RANGE_WRITE)
		s.kicked = s.off
	}
	return n, err
}
