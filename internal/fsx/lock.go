package fsx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked is returned by Acquire when another process still holds the
// lock after the wait.
var ErrLocked = errors.New("workspace is locked by another memctl process")

// pollInterval is how often Acquire retries a held lock.
const pollInterval = 20 * time.Millisecond

// Lock is an exclusive advisory lock on a file, held until Release. The
// operating system drops it when the process dies, so a crashed memctl never
// leaves a stale lock behind.
type Lock struct {
	f *os.File
}

// Acquire takes the exclusive lock on path, creating the file and its
// directory if needed. It waits up to wait for a holder to let go, then
// returns ErrLocked; it returns ctx.Err() if ctx ends first.
func Acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		ok, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-timer.C:
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ErrLocked)
		case <-time.After(pollInterval):
		}
	}
}

// Release lets go of the lock. It is safe to call on a nil Lock and more
// than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
