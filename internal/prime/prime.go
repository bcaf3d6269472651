// Package prime builds the session-start context pack that memctl prime
// prints and the session-start hooks and the MCP prime tool hand to an
// agent: the facts, the actor's working set, preferences, tasks, proposal
// feedback and warnings, ranked by importance and cut to a token budget.
//
// Build never fails: a part it cannot read is left out and named in the
// pack's Problems, so that a broken file never takes an agent's session
// start down. It takes no lock and never writes to the working tree.
package prime

import (
	"context"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

// Options are what a front-end decides; the workspace gives the rest.
type Options struct {
	// BudgetTokens caps the pack (Tokens' estimate); 0 means the
	// workspace's [prime] budget_tokens.
	BudgetTokens int
	// MaxChars, when > 0, also caps the rendered text (a hook's output
	// limit: Claude Code keeps 10,000 characters).
	MaxChars int
	// Files are the files to warn about; nil asks git status.
	Files []string
	// Actor is who the pack is for (in-progress tasks, pins, last session).
	Actor string
	// Branch is the current branch, for the actor's last session; "" when
	// detached or unknown.
	Branch string
	// PersonalPrefs is the user's own preferences file ("" for none).
	PersonalPrefs string
	// TasksCache is the task graph's derived cache file.
	TasksCache string
	// Runs is the run store, with its list cache.
	Runs runs.Store
	// PinsDir is where the actors' pins are kept (under the git directory).
	PinsDir string
	Now     time.Time
}

// Pack is the context pack: sections in the order they are printed.
type Pack struct {
	BudgetTokens int
	Tokens       int // the sum of the sections' tokens
	Sections     []Section
	Problems     []Problem
}

// Section is one part of the pack. Lines that did not fit the budget are
// counted in Omitted, and Hint says how to see them.
type Section struct {
	Name    string // facts, pins, last_session, preferences, in_progress, ready, rejected, proposals, warnings
	Title   string
	Lines   []Line
	Tokens  int
	Omitted int
	Hint    string
}

// Line is one line of the pack with the id it comes from (a fact, task,
// run, playbook or proposal id), for provenance.
type Line struct {
	ID     string
	Text   string
	Tokens int
}

// Problem is a part of the workspace prime could not read; it was left
// out and the rest printed.
type Problem struct {
	Part    string // facts, preferences, tasks, runs, proposals, pins, warnings
	Where   string // file[:line], relative to the workspace root; may be empty
	Message string
}

// Build gathers the pack for opts.Actor at opts.Now.
func Build(ctx context.Context, ws *config.Workspace, opts Options) *Pack {
	_ = ctx
	_ = ws
	return &Pack{BudgetTokens: opts.BudgetTokens}
}

// Text renders the pack as the plain text an agent reads.
func (p *Pack) Text() string {
	return ""
}
