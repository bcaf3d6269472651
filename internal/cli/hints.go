package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets"
)

// hintError carries the hint a command attached to an error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// withHint attaches what to do next to err.
func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hintError{err: err, hint: hint}
}

// hintFor returns the hint for err: the one a command attached, else the
// one for a known cause.
func hintFor(err error) string {
	var h *hintError
	var cfgErr *config.Error
	var usage *usageError
	var secret *secrets.RefusedError
	var text *secrets.TextError
	switch {
	case errors.As(err, &h):
		return h.hint
	case errors.As(err, &text):
		return "remove the character: titles, assignees, labels and ids are one line; other text may hold newlines and tabs but no other control characters, escapes or bidi overrides"
	case errors.As(err, &secret):
		return "remove the credential (memory is committed to git and shared); name where it is kept instead, such as the environment variable or the vault path"
	case errors.Is(err, gitx.ErrNotRepo):
		return `memctl keeps its files in a git repository: run "git init" first, then "memctl init"`
	case errors.Is(err, config.ErrNoWorkspace):
		return `run "memctl init" at the top of the repository to set memctl up`
	case errors.As(err, &cfgErr):
		return "fix " + cfgErr.File + " (every key and its type: memctl help config)"
	case errors.Is(err, fsx.ErrLocked):
		return "another memctl command is writing to this workspace; wait for it and run the command again"
	case errors.Is(err, fsx.ErrChanged):
		return "another program rewrote a memctl file in place while it was read; run the command again"
	case errors.As(err, &usage):
		return genericUsageHint
	}
	return ""
}

// genericUsageHint is the hint of a usage error when the command is not
// known; usageHint names the command when it is.
const genericUsageHint = `run "memctl help" or add --help to the command to see its usage`

// usageHint is hint, or for a usage error of a known subcommand with the
// generic hint, the help of that very command.
func usageHint(cmd *cobra.Command, hint string) string {
	if hint != genericUsageHint || cmd == nil || !cmd.HasParent() {
		return hint
	}
	return `run "` + cmd.CommandPath() + ` --help" to see its usage`
}
