package fsx

import (
	"io"
	"os"
	"time"
)

// Stamp is a regular file of a directory and what it is now: size,
// modification time, change time and inode, which change whenever the
// file is written (an atomic replacement, such as every memctl write and
// git's checkout, makes a new inode even within one tick of a coarse
// clock; an edit in place whose modification time is put back, as cp -p,
// rsync -t and touch -r do, still moves the change time, which no call
// can set). A cache keyed by stamps is checked with one cheap call per
// file instead of a read.
//
// Two writes within one tick of the file system's clock can still leave
// the same stamp, so a cache must not trust a key taken too close to the
// moment it was built: see ReadSettled.
type Stamp struct {
	Name    string
	Size    int64
	ModTime int64 // Unix nanoseconds
	// ChangeTime is the inode's change time (Unix nanoseconds); 0 where
	// the platform has none.
	ChangeTime int64
	Ino        uint64 // 0 where the platform has none
}

// Newest is the later of the stamp's modification and change times.
func (s Stamp) Newest() int64 { return max(s.ModTime, s.ChangeTime) }

// RacyWindow is how long after the newest time of its sources a derived
// file must have been written for its key to be trusted. Within it a
// source may have been written again in the same tick of a coarse clock
// (a second on some file systems, two on FAT; even Linux's nanosecond
// times advance by the scheduler's tick), after it was read and without
// changing its stamp. Git's index has the same rule ("racy git").
const RacyWindow = 2 * time.Second

// Settled reports whether a derived file written at written (Unix
// nanoseconds) can be trusted for sources whose newest time is newest:
// it was written at least RacyWindow after it.
func Settled(written, newest int64) bool { return written-newest >= int64(RacyWindow) }

// FineRacyWindow is RacyWindow for times with a fractional second. Times
// in whole seconds come from a file system that keeps no finer ones (FAT
// keeps two seconds, HFS+ and ext3 one) and keep RacyWindow; finer ones
// (ext4, XFS, Btrfs, APFS, NTFS, exFAT) tick at 10 ms at worst (a kernel
// tick at 100 Hz), so 100 ms is enough, and a command run a moment after
// a write does not have to read its sources again to check them.
const FineRacyWindow = 100 * time.Millisecond

// SettledFine is Settled with FineRacyWindow where newest has a
// fractional second.
func SettledFine(written, newest int64) bool {
	if newest%int64(time.Second) == 0 {
		return Settled(written, newest)
	}
	return written-newest >= int64(FineRacyWindow)
}

// ReadSettled reads the derived file at path, whose sources' newest time
// (Stamp.Newest) is newest, when it was written at least RacyWindow
// after that time: only then can its key not have been taken in the
// same tick as a write it missed. ok is false when the file cannot be
// read or is too young; the caller rebuilds it. A large file is mapped,
// as ReadMapped maps it: the bytes must never be written.
func ReadSettled(path string, newest int64) (data []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !Settled(fi.ModTime().UnixNano(), newest) {
		return nil, false
	}
	size := fi.Size()
	if size >= mapThreshold && size == int64(int(size)) {
		// As ReadMapped: a large derived file is mapped, not copied into
		// fresh memory (the bytes must never be written).
		if b, err := mapFile(f, int(size)); err == nil {
			return b, true
		}
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	return data, true
}
