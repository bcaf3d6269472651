package cli

import (
	"context"
	"errors"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// Exit codes, documented in docs/exit-codes.md. New codes go at the end and
// are never reused.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitNotFound    = 3
	exitNoWorkspace = 4
	exitConflict    = 5
	exitClaimed     = 6
	exitInterrupted = 130
)

// usageError marks a mistake in how memctl was called. The app session's
// own (*app.UsageError, a bad MEMCTL_LOCK_TIMEOUT) is one too.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2).
func usagef(err error) error { return &usageError{err: err} }

// silentError ends the command with code after the command has already
// reported what went wrong (check's findings, a batch's failures).
type silentError struct{ code int }

func (e *silentError) Error() string { return "exit status" }

// notFoundError marks a named thing that does not exist (exit 3), as
// *app.NotFoundError does.
type notFoundError struct{ err error }

func (e *notFoundError) Error() string { return e.err.Error() }
func (e *notFoundError) Unwrap() error { return e.err }

// exitCode is the one place where an error becomes an exit code.
func exitCode(err error) int {
	var (
		usage    *usageError
		appUsage *app.UsageError
		silent   *silentError
		nf       *notFoundError
		appNF    *app.NotFoundError
		text     *secrets.TextError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &silent):
		return silent.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &usage), errors.As(err, &appUsage), errors.As(err, &text):
		return exitUsage
	case errors.Is(err, gitx.ErrNotRepo), errors.Is(err, config.ErrNoWorkspace):
		return exitNoWorkspace
	case errors.As(err, &nf), errors.As(err, &appNF), errors.Is(err, ledger.ErrUnknownCategory), errors.Is(err, tasks.ErrNotFound),
		errors.Is(err, gitx.ErrNotUnmerged):
		return exitNotFound
	case errors.Is(err, fsx.ErrLocked), errors.Is(err, fsx.ErrChanged):
		return exitConflict
	case errors.Is(err, tasks.ErrClaimed):
		return exitClaimed
	default:
		return exitFailure
	}
}

// codeName is the error code in JSON error objects.
func codeName(code int) string {
	switch code {
	case exitUsage:
		return "usage"
	case exitNotFound:
		return "not_found"
	case exitNoWorkspace:
		return "no_workspace"
	case exitConflict:
		return "conflict"
	case exitClaimed:
		return "claimed"
	case exitInterrupted:
		return "interrupted"
	default:
		return "failure"
	}
}
