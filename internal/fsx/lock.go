package fsx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked is returned by Acquire when another process still holds the
// lock after the wait.
var ErrLocked = errors.New("workspace is locked by another memctl process")

// Holder says who holds a lock: written by the holder (Announce) next to
// the lock file, read by a process that gave up waiting. Host is the
// holder's host name (Announce fills it in): a pid says whether the holder
// is alive only on its own host.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host,omitempty"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// LockedError is Acquire's timeout: the lock at Path is held, by Holder
// when the holder announced itself (nil otherwise).
type LockedError struct {
	Path   string
	Holder *Holder
}

func (e *LockedError) Error() string {
	if h := e.Holder; h != nil {
		on := ""
		if h.Host != "" && h.Host != hostname() {
			on = " on " + h.Host
		}
		return fmt.Sprintf("lock %s: workspace is locked by pid %d%s (%s, since %s)",
			e.Path, h.PID, on, h.Command, h.Since.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("lock %s: %v", e.Path, ErrLocked)
}

// Unwrap makes errors.Is(err, ErrLocked) work.
func (e *LockedError) Unwrap() error { return ErrLocked }

// holderPath is the file beside the lock that names its holder. It is a
// separate file, replaced atomically, because Windows forbids reading a
// locked range of the lock file itself. The holder removes it before it
// lets go of the lock, and a waiter ignores one whose process has ended
// (killed before it could remove the file), so the error never names a
// process that no longer holds the lock.
func holderPath(lock string) string { return lock + ".holder" }

// pollInterval is how often Acquire retries a held lock.
const pollInterval = 20 * time.Millisecond

// Lock is an exclusive advisory lock on a file (flock on Unix, LockFileEx
// on Windows), held until Release. The operating system drops it when the
// process dies, SIGKILL included, so a crashed memctl never leaves a stale
// lock behind: the file stays, but nobody holds it, and the next Acquire
// takes it at once. Only the holder file (Announce) can outlive its
// process, and a waiter ignores it then.
type Lock struct {
	f         *os.File
	path      string
	announced bool
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
			return &Lock{f: f, path: path}, nil
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-timer.C:
			_ = f.Close()
			return nil, &LockedError{Path: path, Holder: readHolder(path)}
		case <-time.After(pollInterval):
		}
	}
}

// Announce records who holds the lock, for the error of a process that
// gives up waiting for it. Only the holder may call it. An empty Host is
// this host's name.
func (l *Lock) Announce(h Holder) error {
	if h.Host == "" {
		h.Host = hostname()
	}
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := WriteDerived(holderPath(l.path), data); err != nil {
		return err
	}
	l.announced = true
	return nil
}

// readHolder returns the announced holder of the lock at path, or nil.
func readHolder(path string) *Holder {
	data, err := os.ReadFile(holderPath(path))
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(data, &h) != nil || h.PID == 0 {
		return nil
	}
	// A holder on another host (a workspace on a network file system) is
	// named as it is: its pid says nothing here.
	if (h.Host == "" || h.Host == hostname()) && !processAlive(h.PID) {
		return nil
	}
	return &h
}

// hostname is this host's name, "" if the system will not say.
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// Release lets go of the lock. It is safe to call on a nil Lock and more
// than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.announced {
		// Still under the lock: no new holder can have announced itself.
		_ = os.Remove(holderPath(l.path))
		l.announced = false
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// LockState is what InspectLock finds of a lock, without waiting for it.
type LockState struct {
	// Held: a process holds the lock now.
	Held bool
	// Holder is what the holder file says, nil when there is none or it
	// cannot be read.
	Holder *Holder
	// HolderFile is the holder file's path; HolderExists says it is there.
	HolderFile   string
	HolderExists bool
	// Stale: nobody holds the lock, yet its holder file is there, naming
	// a process of this host that is gone (killed before it could remove
	// the file) or nothing readable. Harmless to memctl, which ignores
	// such a file, but confusing to a person; ClearStale removes it.
	Stale bool
	// Alive says whether Holder's process runs, when it is of this host.
	Alive bool
	// OtherHost: Holder names a process of another host, whose pid says
	// nothing here.
	OtherHost bool
}

// InspectLock reports on the lock at path: whether it is held (one try,
// released at once), and what its holder file says. It never waits, and
// never takes the lock from a live holder.
func InspectLock(path string) (LockState, error) {
	st, err := inspectHolder(path)
	if err != nil {
		return st, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// No lock file: nobody has ever held it here.
	case err != nil:
		return st, fmt.Errorf("lock %s: %w", path, err)
	default:
		defer f.Close()
		ok, err := tryLock(f)
		if err != nil {
			return st, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			_ = unlock(f)
		}
		st.Held = !ok
	}
	st.Stale = !st.Held && st.Stale
	return st, nil
}

// inspectHolder reads the holder file of the lock at path; Stale says
// what it would mean if nobody held the lock.
func inspectHolder(path string) (LockState, error) {
	st := LockState{HolderFile: holderPath(path)}
	data, err := os.ReadFile(st.HolderFile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("read %s: %w", st.HolderFile, err)
	}
	st.HolderExists = true
	var h Holder
	if json.Unmarshal(data, &h) == nil && h.PID != 0 {
		st.Holder = &h
		st.OtherHost = h.Host != "" && h.Host != hostname()
		st.Alive = !st.OtherHost && processAlive(h.PID)
	}
	st.Stale = !st.OtherHost && !st.Alive
	return st, nil
}

// ClearStale removes the holder file of the lock at path if it is stale
// (InspectLock), deciding under the lock, taken with one try so that a
// live holder is never waited for nor disturbed. It reports whether it
// removed the file.
func ClearStale(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		// No lock file: a holder file beside it is stale by definition,
		// but nothing can hold the lock while this one looks.
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil || !ok {
		return false, err // held: not stale
	}
	defer unlock(f)
	st, err := inspectHolder(path)
	if err != nil || !st.HolderExists || !st.Stale {
		return false, err
	}
	if err := os.Remove(st.HolderFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("remove %s: %w", st.HolderFile, err)
	}
	return true, nil
}
