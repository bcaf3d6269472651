package cli

import (
	"errors"

	"github.com/memctl/memctl/internal/app"
	"github.com/spf13/cobra"
)

// hintError carries the hint a command attached to an error (app's, so
// that every front-end reports it).
type hintError = app.HintError

// withHint attaches what to do next to err.
func withHint(err error, hint string) error { return app.WithHint(err, hint) }

// hintFor returns the hint for err: the one a command attached, else the
// one for a known cause (app.Hint), else for a usage error the usage's.
func hintFor(err error) string {
	if h := app.Hint(err); h != "" {
		return h
	}
	var usage *usageError
	var appUsage *app.UsageError
	if errors.As(err, &usage) || errors.As(err, &appUsage) {
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
