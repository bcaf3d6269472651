// Package cli wires memctl's commands with cobra and renders their
// results. It is the only package that knows about terminals, flags, exit
// codes and the process environment; the domain packages below it never
// print, exit or read the clock.
package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
)

// Env is everything a command may take from the outside world. Tests build
// their own; the shipped binary uses SystemEnv.
type Env struct {
	In        io.Reader
	Out, Err  io.Writer
	StdinTTY  bool
	StdoutTTY bool
	Getenv    func(string) string
	Getwd     func() (string, error)
	Now       func() time.Time
	Rand      io.Reader
	// Width is the terminal width for human output; 0 when unknown.
	Width int
	// Prompter asks the interactive review's questions; nil means huh.
	Prompter Prompter

	// command is the running command ("memctl update"), without its
	// arguments, which may hold anything: it names a lock's holder.
	command string
	ws      *config.Workspace
	wsErr   error
	// sessions are the app sessions over the workspaces the command
	// opened (Env.session), closed with the rest.
	sessions map[*config.Workspace]*app.Session
	warned   bool
	closers  []func() error
}

// SystemEnv returns the Env of the running process.
func SystemEnv() *Env {
	e := &Env{
		In:        os.Stdin,
		Out:       os.Stdout,
		Err:       os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		Getenv:    os.Getenv,
		Getwd:     os.Getwd,
		Now:       time.Now,
		Rand:      rand.Reader,
	}
	if e.StdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			e.Width = w
		}
	}
	return e
}

// workspace opens the workspace once per process. Unless quiet, it prints
// the configuration warnings (unknown keys) on stderr the first time.
func (e *Env) workspace(quiet bool) (*config.Workspace, error) {
	if e.ws == nil && e.wsErr == nil {
		dir, err := e.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find working directory: %w", err)
		}
		e.ws, e.wsErr = config.Open(dir)
	}
	if e.wsErr != nil {
		return nil, e.wsErr
	}
	if !quiet && !e.warned {
		for _, w := range e.ws.Warnings {
			e.warnf("%s", w)
		}
	}
	e.warned = true
	return e.ws, nil
}

// taskWorkspace opens the workspace for a task command: the memctl
// workspace, or a repository bd uses without memctl
// (config.OpenTasks: .beads/issues.jsonl, no .ledger).
func (e *Env) taskWorkspace() (*config.Workspace, error) {
	ws, err := e.Workspace()
	if !errors.Is(err, config.ErrNoWorkspace) {
		return ws, err
	}
	dir, derr := e.Getwd()
	if derr != nil {
		return nil, fmt.Errorf("find working directory: %w", derr)
	}
	return config.OpenTasks(dir)
}

// Workspace opens the workspace that holds the working directory.
func (e *Env) Workspace() (*config.Workspace, error) { return e.workspace(false) }

// Lock takes the workspace write lock until the command ends (the app
// session's lock: taking it again while held does nothing).
func (e *Env) Lock(ctx context.Context, ws *config.Workspace) error {
	return e.session(ws).Lock(ctx)
}

// lockAt takes the lock at path, waiting as cfg's [lock] timeout says
// (nil: no workspace config; app.LockWait); Main releases it when the
// command ends, if the caller has not already.
func (e *Env) lockAt(ctx context.Context, cfg *config.Config, path string) (*fsx.Lock, error) {
	l, err := app.AcquireLock(ctx, path, cfg, e.appOptions())
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, l.Release) // Release is safe to call twice
	return l, nil
}

// holder is this process as the holder of a lock.
func (e *Env) holder() fsx.Holder {
	return fsx.Holder{PID: os.Getpid(), Command: e.command, Since: e.Now().UTC().Truncate(time.Second)}
}

// LockScoped takes the workspace write lock for one step of a long command
// (one decision of an interactive review), so that other memctl processes
// can write between steps; the caller releases it.
func (e *Env) LockScoped(ctx context.Context, ws *config.Workspace) (*fsx.Lock, error) {
	return e.lockAt(ctx, &ws.Config, ws.LockPath())
}

// acquirer takes locks as lockAt does, for a domain call that takes and
// releases one itself (prime.UpdatePins).
func (e *Env) acquirer(cfg *config.Config) func(context.Context, string) (*fsx.Lock, error) {
	return func(ctx context.Context, path string) (*fsx.Lock, error) {
		return app.AcquireLock(ctx, path, cfg, e.appOptions())
	}
}

// close releases what the command opened, last first.
func (e *Env) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		if err := e.closers[i](); err != nil {
			e.warnf("%v", err)
		}
	}
	e.closers = nil
	// The sessions are closed: an Env run again (tests, an embedding
	// front-end) opens new ones, whose locks its next close releases.
	e.sessions = nil
}

// warnf prints a warning on stderr.
func (e *Env) warnf(format string, args ...any) {
	fmt.Fprintf(e.Err, "memctl: warning: %s\n", visible(unsecret(fmt.Sprintf(format, args...))))
}

// reportRedactions says on stderr, one warning each, what the write gate
// replaced with [REDACTED:<rule>] ([secrets] mode = "redact"): the field,
// rule, position and fingerprint, never the secret.
func (e *Env) reportRedactions(reds []secrets.Redaction) {
	for _, r := range reds {
		e.warnf("%s", r)
	}
}

// hintf prints what to do next on stderr, as an error's hint is printed.
func (e *Env) hintf(format string, args ...any) {
	fmt.Fprintf(e.Err, "memctl: hint: %s\n", visible(unsecret(fmt.Sprintf(format, args...))))
}

// notef prints a note on stderr.
func (e *Env) notef(format string, args ...any) {
	fmt.Fprintf(e.Err, "memctl: %s\n", visible(fmt.Sprintf(format, args...)))
}
