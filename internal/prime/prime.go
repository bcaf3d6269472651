// Package prime builds the session-start context pack that memctl prime
// prints and the session-start hooks and the MCP prime tool hand to an
// agent: the facts, the actor's working set, preferences, tasks, proposal
// feedback and warnings, ranked by importance and cut to a token budget.
//
// Build never fails: a part it cannot read is left out and named in the
// pack's Problems, so that a broken file never takes an agent's session
// start down. It takes no lock and never writes to the working tree; the
// only files it may write are derived caches under the git directory.
package prime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

// RejectedWindow is how far back prime shows rejected proposals.
const RejectedWindow = 14 * 24 * time.Hour

// Options are what a front-end decides; the workspace gives the rest.
type Options struct {
	// BudgetTokens caps the pack (Tokens' estimate); 0 means the
	// workspace's [prime] budget_tokens.
	BudgetTokens int
	// MaxChars, when > 0, also caps the rendered text (a hook's output
	// limit: Claude Code keeps 10,000 characters). The budget becomes
	// at most MaxChars/4 tokens, so Text is at most MaxChars bytes.
	MaxChars int
	// Files are the files to warn about, relative to the repository
	// root; nil asks git status (leaving out .ledger/ and .beads/), an
	// empty list warns about nothing.
	Files []string
	// Actor is who the pack is for (in-progress tasks, pins).
	Actor string
	// Branch is the current branch, for the last session; "" when
	// detached or unknown (no last session is shown).
	Branch string
	// PersonalPrefs is the user's own preferences file ("" for none).
	PersonalPrefs string
	// TasksCache is the task graph's derived cache file; prime keeps its
	// own summary of the graph next to it ("" for neither).
	TasksCache string
	// Runs is the run store, with its list cache.
	Runs runs.Store
	// PinsDir is where the actors' pins are kept (under the git
	// directory); "" shows no pins.
	PinsDir string
	Now     time.Time
}

// Pack is the context pack: sections in the order they are printed.
type Pack struct {
	// Disabled is set when [prime] enabled = false: the pack is empty.
	Disabled bool
	// BudgetTokens is the budget the pack was cut to (MaxChars included).
	BudgetTokens int
	// Tokens is what Text costs (TextTokens): the sections' tokens and
	// the closing lines'.
	Tokens   int
	Sections []Section
	Problems []Problem
	// LeftOut is the closing line naming the sections the budget left out
	// whole and the budget that shows them; "" when none was.
	LeftOut string
	// NotShown is the closing line naming the parts that could not be
	// read (Problems) and the command that says more; "" when every part
	// was read, or when not even it fit the budget.
	NotShown string
	// FullTokens is what the whole pack would cost: a budget of
	// SuggestedBudget(FullTokens) shows every line.
	FullTokens int
}

// Empty reports whether the pack prints nothing although it has something
// to print: the budget holds not even the closing line.
func (p *Pack) Empty() bool {
	return !p.Disabled && p.Tokens == 0 && (len(p.Sections) > 0 || len(p.Problems) > 0)
}

// Section is one part of the pack. Lines that did not fit the budget (or
// past a section's own limit, such as ReadyLimit) are counted in
// Omitted, and Hint says how to see them.
type Section struct {
	Name  string // facts, pins, last_session, preferences, in_progress, ready, rejected, proposals, warnings
	Title string // "" for a section that is one line (proposals)
	Lines []Line
	// Tokens is what the section costs: its title, lines and hint line,
	// and the blank line before it unless it is printed first.
	Tokens  int
	Omitted int
	Hint    string // the command that shows every line
	// Dropped is set when the budget left the section out whole: it is
	// not printed, Omitted counts all its lines and the pack's LeftOut
	// names it.
	Dropped bool

	more string // the printed hint line, when Omitted > 0
}

// Line is one line of the pack with the id it comes from (a fact, task,
// run, playbook or proposal id), for provenance.
type Line struct {
	ID     string
	Text   string
	Tokens int

	order int // facts: the place in the ledger, for printing
}

// Problem is a part of the workspace prime could not read; it was left
// out and the rest printed.
type Problem struct {
	Part    string // facts, preferences, tasks, runs, proposals, pins, warnings
	Where   string // file[:line], relative to the workspace root; may be empty
	Message string
}

// Detail is the problem without its part: "where: message", or the
// message when there is no where.
func (p Problem) Detail() string {
	if p.Where == "" {
		return p.Message
	}
	return p.Where + ": " + p.Message
}

// Build gathers the pack for opts.Actor at opts.Now.
func Build(ctx context.Context, ws *config.Workspace, opts Options) *Pack {
	budget := opts.BudgetTokens
	if budget <= 0 {
		budget = ws.Config.Prime.BudgetTokens
	}
	if opts.MaxChars > 0 {
		budget = min(budget, opts.MaxChars/4)
	}
	p := &Pack{BudgetTokens: budget, Sections: []Section{}}
	if !ws.Config.Prime.Enabled {
		p.Disabled = true
		return p
	}
	g := gather(ctx, ws, opts)
	drafts := g.drafts(ws, opts)
	p.Problems = g.problems()
	res := cut(drafts, budget, notShownLine(p.Problems))
	p.Sections, p.LeftOut, p.NotShown, p.FullTokens = res.sections, res.leftOut, res.notShown, res.full
	for _, s := range p.Sections {
		p.Tokens += s.Tokens
	}
	p.Tokens += res.closing
	return p
}

// notShownLine names the parts that could not be read, each with where
// its first problem is, and the command that says more; "" for none.
func notShownLine(probs []Problem) string {
	if len(probs) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, p := range probs {
		if seen[p.Part] {
			continue
		}
		seen[p.Part] = true
		if p.Where != "" {
			parts = append(parts, fmt.Sprintf("%s (%s cannot be read)", p.Part, p.Where))
		} else {
			parts = append(parts, p.Part+" (cannot be read)")
		}
	}
	return "- not shown: " + strings.Join(parts, ", ") + ": memctl check"
}

// Text renders the pack as the plain text an agent reads: each printed
// section's title, its lines and its hint line, then the closing lines
// (LeftOut, NotShown), with a blank line between two blocks.
func (p *Pack) Text() string {
	var b strings.Builder
	for _, s := range p.Sections {
		if s.Dropped || (len(s.Lines) == 0 && s.more == "") {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if s.Title != "" {
			b.WriteString(s.Title)
			b.WriteByte('\n')
		}
		for _, l := range s.Lines {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
		if s.more != "" {
			b.WriteString(s.more)
			b.WriteByte('\n')
		}
	}
	if p.LeftOut != "" || p.NotShown != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		for _, l := range []string{p.LeftOut, p.NotShown} {
			if l != "" {
				b.WriteString(l)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// newLine is a line with its cost.
func newLine(id, text string) Line { return Line{ID: id, Text: text, Tokens: lineTokens(text)} }

// plural is n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
