package prime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

// The parts prime reads, each on its own goroutine: they read different
// files (and git status runs a process), so prime costs about its slowest
// part, not their sum.
const (
	partFacts = iota
	partPreferences
	partTasks
	partRuns
	partProposals
	partPins
	partWarnings
	numParts
)

var partNames = [numParts]string{"facts", "preferences", "tasks", "runs", "proposals", "pins", "warnings"}

// gathered is what the parts read; each part writes only its own fields
// and its own slot of probs.
type gathered struct {
	facts *ledger.Ledger // the facts files prime uses (broken ones left out)
	// factsUnread are the facts files left out.
	factsUnread []string
	personal    *ledger.File
	summary     *taskSummary
	runs        *runsView
	// Of the proposals: when each fact was last approved, the rejected
	// ones, and how many wait for review.
	approved map[string]time.Time
	rejected []*proposal.Proposal
	pending  int
	// proposalsBroken: the proposals directory could not be read.
	proposalsBroken bool
	pins            []Pin
	changed         []string // files to warn about
	probs           [numParts][]Problem
}

// problem records what part could not read at where, and what prime left
// out for it (left: "no tasks are shown").
func (g *gathered) problem(part int, where string, err error, left string) {
	g.probs[part] = append(g.probs[part], Problem{Part: partNames[part], Where: where, Message: err.Error() + "; " + left})
}

// safely runs read, one part's reading in its own goroutine: a panic
// there would end the process (the hook's and the MCP server's recover
// see only their own goroutine), so it is that part's problem instead,
// and the rest of the pack is built as for any part that cannot be read.
func (g *gathered) safely(part int, read func()) {
	defer func() {
		if r := recover(); r != nil {
			g.problem(part, "", fmt.Errorf("internal error: %v", r), "it is left out")
		}
	}()
	read()
}

// problems are every part's, in the order of the parts.
func (g *gathered) problems() []Problem {
	out := []Problem{}
	for _, p := range g.probs {
		out = append(out, p...)
	}
	return out
}

func gather(ctx context.Context, ws *config.Workspace, opts Options) *gathered {
	g := &gathered{}
	cfg := ws.Config
	type part struct {
		part int
		read func()
	}
	var parts []part
	if cfg.Facts.Enabled {
		parts = append(parts, part{partProposals, func() { g.readLedger(ws, opts) }}) // facts are read in a goroutine of their own
	}
	if opts.PersonalPrefs != "" {
		parts = append(parts, part{partPreferences, func() { g.readPersonal(opts.PersonalPrefs) }})
	}
	if cfg.Tasks.Enabled {
		parts = append(parts, part{partTasks, func() { g.readTasks(ws, opts) }})
	}
	if cfg.Runs.Enabled {
		g.changed = opts.Files
		var changed func() ([]string, error)
		if opts.Files == nil {
			changed = func() ([]string, error) {
				return gitx.ChangedOutside(ctx, ws.Root, config.LedgerDir, config.BeadsDir)
			}
		}
		parts = append(parts, part{partRuns, func() { g.readRuns(ws, opts, changed) }})
	}
	if opts.PinsDir != "" && opts.Actor != "" {
		parts = append(parts, part{partPins, func() { g.readPins(opts) }})
	}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Go(func() { g.safely(p.part, p.read) })
	}
	wg.Wait()
	return g
}

// readFacts loads the facts files. A file with conflict markers, or that
// cannot be read as text at all, is left out whole (a conflict holds
// both sides' facts); a file with other problems (an empty item, say)
// keeps the facts that could be read. Either way it is one problem.
func (g *gathered) readFacts(ws *config.Workspace) {
	l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
	if err != nil {
		g.problem(partFacts, config.FactsDir, err, "no facts are shown")
		return
	}
	kept, unread := Readable(l)
	for _, f := range l.Files {
		if len(f.Problems) > 0 {
			skip := slices.Contains(unread, f)
			g.probs[partFacts] = append(g.probs[partFacts], fileProblem(partNames[partFacts], f, skip))
		}
	}
	for _, f := range unread {
		g.factsUnread = append(g.factsUnread, f.Path)
	}
	g.facts = kept
}

// fileProblem is a facts file's problems as one: the first, and how many
// more there are.
func fileProblem(part string, f *ledger.File, skipped bool) Problem {
	first := f.Problems[0]
	msg := first.Message
	if n := len(f.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %s)", plural(n, "more problem"))
	}
	if skipped {
		msg += "; the whole file is left out"
	} else {
		msg += "; the rest of the file is used"
	}
	return Problem{Part: part, Where: fmt.Sprintf("%s:%d", f.Path, first.Line), Message: msg}
}

func (g *gathered) readPersonal(path string) {
	f, err := ledger.LoadPersonal(path)
	if err != nil {
		g.problem(partPreferences, "", err, "no personal preferences are shown")
		return
	}
	if len(f.Problems) > 0 {
		skip := len(f.ConflictLines) > 0 || len(f.Facts) == 0
		g.probs[partPreferences] = append(g.probs[partPreferences], fileProblem(partNames[partPreferences], f, skip))
		if skip {
			return
		}
	}
	g.personal = f
}

func (g *gathered) readProposals(ws *config.Workspace) {
	d := proposal.Dir{Path: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir}
	list, problems, err := d.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		g.problem(partProposals, config.ProposalsDir, err, "no proposals are shown")
		g.proposalsBroken = true
		return
	}
	for _, p := range problems {
		g.probs[partProposals] = append(g.probs[partProposals], Problem{Part: "proposals", Where: fmt.Sprintf("%s:%d", p.File, p.Line),
			Message: p.Message + "; that proposal is left out"})
	}
	g.approved = map[string]time.Time{}
	for _, p := range list {
		switch {
		case p.Status == proposal.StatusPending:
			g.pending++
		case p.ReviewedAt == nil:
		case p.Status == proposal.StatusRejected:
			g.rejected = append(g.rejected, p)
		case p.Status == proposal.StatusApproved && p.AppliedFactID != "" && p.Action != proposal.ActionRemove:
			// When a person last approved a text of the fact.
			if t, ok := g.approved[p.AppliedFactID]; !ok || p.ReviewedAt.After(t) {
				g.approved[p.AppliedFactID] = *p.ReviewedAt
			}
		}
	}
}

func (g *gathered) readTasks(ws *config.Workspace, opts Options) {
	s, err := loadSummary(ws.Path(config.IssuesFile), opts.TasksCache, opts.Now)
	if err != nil {
		g.problem(partTasks, config.IssuesFile, err, "no tasks are shown")
		return
	}
	if s.Broken != "" {
		g.problem(partTasks, fmt.Sprintf("%s:%d", config.IssuesFile, s.BrokenLine), errors.New(s.Broken), "no tasks are shown")
		return
	}
	g.summary = s
}

// readRuns reads the runs and, given changed (git status), which of the
// files they named are changed: from the answer kept for them when it
// holds (changedCache), else from git.
func (g *gathered) readRuns(ws *config.Workspace, opts Options, changed func() ([]string, error)) {
	v, err := loadRuns(opts.Runs)
	if err != nil {
		g.problem(partRuns, opts.Runs.Rel, err, "no runs are shown")
		return
	}
	for _, p := range v.problems() {
		g.problem(partRuns, "", errors.New(p), "that run is left out")
	}
	g.runs = v
	if changed == nil || !v.sum.named {
		// When no run named a file there is nothing to warn about, and
		// git's answer is not waited for.
		return
	}
	var at string
	if dir := cacheDir(opts); dir != "" {
		at = filepath.Join(dir, "prime-changed.cache")
	}
	files, err := changedCache(ws, at, v.sum.names(), changed)
	if err != nil {
		g.problem(partWarnings, "", fmt.Errorf("git status: %w", err), "no warnings are shown")
		return
	}
	g.changed = files
}

func (g *gathered) readPins(opts Options) {
	pins, err := LoadPins(opts.PinsDir, opts.Actor)
	if err != nil {
		g.problem(partPins, "", err, "no pins are shown")
		return
	}
	g.pins = pins
}
