package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// The errors below carry what a front-end needs to report a refusal the
// same way everywhere: the CLI turns them into an exit code and a hint
// line, the MCP server into a tool error with the same message and hint.

// HintError carries what to do next about Err.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// WithHint attaches what to do next to err; nil stays nil.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &HintError{Err: err, Hint: hint}
}

// UsageError marks a mistake in how memctl was asked: a bad flag, tool
// argument or setting (the CLI's exit 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// NotFoundError marks a named thing that does not exist (exit 3).
type NotFoundError struct{ Err error }

func (e *NotFoundError) Error() string { return e.Err.Error() }
func (e *NotFoundError) Unwrap() error { return e.Err }

// LayerOffError refuses a write to a layer switched off in the config: an
// agent's write must fail loudly, not vanish.
type LayerOffError struct{ Layer string }

func (e *LayerOffError) Error() string {
	return fmt.Sprintf("the %s layer is disabled ([%s] enabled = false in %s)", e.Layer, e.Layer, config.ConfigFile)
}

// Hint is what to do next about err: the hint attached to it, else the
// one for a known cause, else "". A usage error without a hint of its own
// has none here: each front-end knows where its usage is described.
func Hint(err error) string {
	var (
		h      *HintError
		off    *LayerOffError
		cfgErr *config.Error
		secret *secrets.RefusedError
		text   *secrets.TextError
		down   *embed.DownError
	)
	switch {
	case errors.As(err, &h):
		return h.Hint
	case errors.As(err, &down):
		return "memctl doctor checks the embedder now (when it answers, recall uses it again at once); --mode hybrid or bm25 answers by words meanwhile"
	case errors.As(err, &off):
		return "set [" + off.Layer + "] enabled = true in " + config.ConfigFile + " to keep " + off.Layer + " in this repository"
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
	}
	return ""
}

// TaskError adds what to do next to the task graph's errors.
func TaskError(err error) error {
	var (
		nf    *tasks.NotFoundError
		claim *tasks.ClaimError
		cyc   *tasks.CycleError
		val   *tasks.ValidationError
	)
	switch {
	case errors.As(err, &nf):
		return WithHint(&NotFoundError{err}, `run "memctl list --all" to see issue ids`)
	case errors.As(err, &claim):
		return WithHint(err, "pick another issue (memctl ready --unassigned), or ask "+claim.Holder+" to hand it over")
	case errors.As(err, &cyc):
		return WithHint(err, "remove one of the edges on that path first (memctl dep remove)")
	case errors.As(err, &val):
		return &UsageError{err}
	}
	return err
}

// ProposalError adds what to do next to the facts book's errors.
func ProposalError(err error) error {
	var (
		ref *proposal.RefusedError
		st  *proposal.StateError
		bud *proposal.BudgetError
		cat *proposal.CategoryError
		cfl *ledger.ConflictError
		pbe *ledger.PlaybookError
		mis *proposal.CategoryMismatchError
	)
	switch {
	case errors.As(err, &cfl):
		return WithHint(err, "resolve the merge in "+cfl.Path+" (keep the facts of both sides, delete the marker lines), git add it, then run this again")
	case errors.As(err, &pbe):
		return WithHint(err, "memctl does not write into a playbook it cannot read: fix the line (memctl check lists every problem), then run this again")
	case errors.Is(err, proposal.ErrFactNotFound):
		return WithHint(&NotFoundError{err}, `run "memctl facts" to see fact ids`)
	case errors.As(err, &mis):
		return WithHint(&UsageError{err}, fmt.Sprintf("leave out --category, or give --category %s: an update or removal goes to the fact's own file", mis.FactCategory))
	case errors.As(err, &cat):
		hint := ""
		if cat.Suggestion != "" {
			hint = fmt.Sprintf("did you mean %q? ", cat.Suggestion)
		}
		if len(cat.Known) > 0 {
			hint += fmt.Sprintf("categories are the files in %s: %s; ", config.FactsDir, strings.Join(cat.Known, ", "))
		}
		return WithHint(err, hint+"to start a new category, add --new-category")
	case errors.As(err, &ref):
		return WithHint(err, ref.Hint)
	case errors.As(err, &st):
		return WithHint(err, `run "memctl review --list --status all" to see every proposal's state`)
	case errors.As(err, &bud):
		return WithHint(err, "remove or merge facts first (memctl facts --stats), or approve anyway with --over-budget")
	case errors.Is(err, proposal.ErrNotFound):
		return WithHint(&NotFoundError{err}, `run "memctl proposals" to see pending proposal ids`)
	}
	return err
}

// RunError adds what to do next to the run store's errors.
func RunError(err error) error {
	var (
		fe  *runs.FileError
		inv *runs.InvalidError
		amb *runs.AmbiguousError
	)
	switch {
	case errors.As(err, &fe):
		return WithHint(err, "fix "+fe.Path+" by hand (memctl never rewrites a file it cannot read), or move it away and record again")
	case errors.As(err, &inv):
		return &UsageError{err}
	case errors.As(err, &amb):
		return WithHint(&UsageError{err}, "name the run with --run "+amb.RunIDs[0]+" (memctl runs --json shows each)")
	case errors.Is(err, runs.ErrNotFound):
		return WithHint(&NotFoundError{err}, `run "memctl runs" to see run ids`)
	}
	return err // the gate's refusals carry their hint (Hint)
}
