// Package app is memctl's composition root: a Session over one workspace
// that the front-ends (the CLI, the MCP server, the hook adapters) open
// the same way, so that they take the same locks, read the same stores
// and get the same refusals. It builds the task graph, the run store, the
// recall index, the facts book and prime's options from the workspace and
// the process's environment, which the front-end hands over in Options:
// app never prints, exits or reads the clock itself.
package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/tasks"
)

// DefaultLockWait is how long a write waits for another memctl process to
// finish before giving up (fsx.ErrLocked) when neither [lock] timeout nor
// MEMCTL_LOCK_TIMEOUT (a Go duration such as "30s") says otherwise.
const DefaultLockWait = config.DefaultLockTimeout

// Options are what a front-end takes from the outside world.
type Options struct {
	// Getenv reads the environment (MEMCTL_ACTOR, MEMCTL_LOCK_TIMEOUT,
	// USER, XDG_CONFIG_HOME, the embedder's keys).
	Getenv func(string) string
	// Now is the clock; required (app never reads the system clock).
	Now func() time.Time
	// Rand is the randomness of new ids; nil means crypto/rand.
	Rand io.Reader
	// Holder names this process as the holder of a lock, for the error of
	// a writer that gives up waiting; nil names the pid and the time only.
	Holder func() fsx.Holder
	// Notice and Warn report what the user should know but that does not
	// stop the work (a disabled layer read as empty, a fallback); nil
	// drops them. The text may come from files: the front-end escapes it.
	Notice, Warn func(msg string)
}

// Session is one front-end's use of one workspace: what it opened (the
// index) and the lock it took, until Close.
type Session struct {
	ws      *config.Workspace
	opts    Options
	lock    *fsx.Lock
	index   *index.Index
	closers []func() error
}

// Open finds the workspace that holds dir and opens a session over it.
// The configuration's warnings (unknown keys) go to opts.Warn.
func Open(dir string, opts Options) (*Session, error) {
	ws, err := config.Open(dir)
	if err != nil {
		return nil, err
	}
	s := New(ws, opts)
	for _, w := range ws.Warnings {
		s.warnf("%s", w)
	}
	return s, nil
}

// New opens a session over a workspace the front-end has opened already.
func New(ws *config.Workspace, opts Options) *Session {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	return &Session{ws: ws, opts: opts}
}

// Workspace is the session's workspace.
func (s *Session) Workspace() *config.Workspace { return s.ws }

// Now is the session's clock.
func (s *Session) Now() time.Time { return s.opts.Now() }

// Rand is the session's randomness, for new ids.
func (s *Session) Rand() io.Reader { return s.opts.Rand }

// Close releases what the session opened, last first: the index, then the
// lock. It returns the first error; calling it again does nothing.
func (s *Session) Close() error {
	var first error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	s.closers, s.lock, s.index = nil, nil, nil
	return first
}

func (s *Session) noticef(format string, args ...any) {
	if s.opts.Notice != nil {
		s.opts.Notice(fmt.Sprintf(format, args...))
	}
}

func (s *Session) warnf(format string, args ...any) {
	if s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// Identity is a name to act under: override if set, else git's user.name,
// else its user.email, else $USER, else "unknown"; and git's email.
func (s *Session) Identity(override string) (name, email string) {
	name, email = gitx.Identity(s.ws.Root)
	for _, n := range []string{override, name, email, s.opts.Getenv("USER"), "unknown"} {
		if n != "" {
			return n, email
		}
	}
	return "", email
}

// Actor is who memctl acts as: MEMCTL_ACTOR, else git's user.name (or
// user.email), else $USER.
func (s *Session) Actor() tasks.Actor {
	name, email := s.Identity(s.opts.Getenv("MEMCTL_ACTOR"))
	return tasks.Actor{Name: name, Email: email}
}

// Reviewer is who decides: flag (--reviewer), else MEMCTL_ACTOR (as for
// every other command), else git's user.name or user.email, else $USER.
func (s *Session) Reviewer(flag string) (name, email string) {
	if flag == "" {
		flag = s.opts.Getenv("MEMCTL_ACTOR")
	}
	return s.Identity(flag)
}

// Lock takes the workspace write lock until Close, waiting as long as
// LockWait says. Taking it again while held does nothing.
func (s *Session) Lock(ctx context.Context) error {
	if s.lock != nil {
		return nil
	}
	l, err := AcquireLock(ctx, s.ws.LockPath(), &s.ws.Config, s.opts)
	if err != nil {
		return err
	}
	s.lock = l
	s.closers = append(s.closers, l.Release)
	return nil
}

// LockWait is how long a write waits for a lock: MEMCTL_LOCK_TIMEOUT if
// set, else cfg's [lock] timeout, else (cfg nil: no workspace yet, or a
// lock outside it) DefaultLockWait. A MEMCTL_LOCK_TIMEOUT that is not a
// duration is a *UsageError.
func LockWait(getenv func(string) string, cfg *config.Config) (time.Duration, error) {
	if v := getenv("MEMCTL_LOCK_TIMEOUT"); v != "" {
		d, err := config.ParseLockTimeout(v)
		if err != nil {
			return 0, &UsageError{Err: fmt.Errorf("MEMCTL_LOCK_TIMEOUT=%q: want a duration such as 30s", v)}
		}
		return d, nil
	}
	if cfg != nil {
		return cfg.Lock.Wait, nil
	}
	return DefaultLockWait, nil
}

// AcquireLock takes the lock at path, waiting as long as LockWait says,
// and records opts.Holder as its holder. Giving up is fsx.ErrLocked with
// a hint that says how long it waited and how to wait longer: nothing was
// written, and the command is safe to run again.
func AcquireLock(ctx context.Context, path string, cfg *config.Config, opts Options) (*fsx.Lock, error) {
	wait, err := LockWait(opts.Getenv, cfg)
	if err != nil {
		return nil, err
	}
	l, err := fsx.Acquire(ctx, path, wait)
	if errors.Is(err, fsx.ErrLocked) {
		return nil, WithHint(err, fmt.Sprintf("another memctl command is writing to this workspace; nothing was changed: run the command again when it is done (this one waited %v; [lock] timeout in %s or MEMCTL_LOCK_TIMEOUT sets how long)", wait, config.ConfigFile))
	}
	if err != nil {
		return nil, err
	}
	// Who holds the lock, for the error of a writer that gives up waiting;
	// failing to say so costs only that message.
	_ = l.Announce(opts.holder())
	return l, nil
}

// holder is opts.Holder's answer, else this process, as memctl, since now.
func (o Options) holder() fsx.Holder {
	if o.Holder != nil {
		return o.Holder()
	}
	h := fsx.Holder{PID: os.Getpid(), Command: "memctl"}
	if o.Now != nil {
		h.Since = o.Now().UTC().Truncate(time.Second)
	}
	return h
}
