// Package status gathers the one-screen overview of a workspace that
// memctl status prints: facts against their budgets, pending proposals,
// tasks, recent runs, the recall index and the agent hooks. It never builds
// the index and takes no lock; the only files it may write are the derived
// task and run caches under the git directory, when they are stale.
package status

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks"
)

// RunsWindow is how far back "runs this week" looks.
const RunsWindow = 7 * 24 * time.Hour

// Options say where the caches and the derived index are; the workspace
// gives the rest.
type Options struct {
	TasksCache string     // the task graph's cache file
	Runs       runs.Store // the run store, with its list cache
	IndexDir   string     // the recall index's directory
	// IndexSources are the sources the index is built from (those of the
	// enabled layers).
	IndexSources []index.Source
	Now          time.Time
}

// Status is the overview. A part that could not be read is counted as
// far as it could be, and says why in Problems; Gather never fails for it.
type Status struct {
	Facts     Facts
	Proposals Proposals
	Tasks     Tasks
	Runs      Runs
	Index     Index
	Hooks     []Hook
	Problems  []Problem
}

// Facts is the facts layer against its budgets, as memctl facts --stats
// and memctl check count them (ledger.Ledger Lines and Bytes).
type Facts struct {
	Enabled              bool
	Files, Facts         int
	Lines, MaxLines      int
	Bytes, MaxTotalBytes int
}

// Proposals are the pending proposals; Oldest is the creation time of the
// oldest, zero when there is none.
type Proposals struct {
	Enabled bool // proposals belong to the facts layer
	Pending int
	Oldest  time.Time
}

// Tasks are the task graph's counts (tasks.Count, as memctl stats).
type Tasks struct {
	Enabled bool
	tasks.Stats
}

// Runs are the runs of the last RunsWindow: how many, and how many failed.
type Runs struct {
	Enabled  bool
	Since    time.Time
	Count    int
	Failures int
}

// Index is the recall index against the files (index.Check: read only,
// no lock; files are compared by size and modification time).
type Index struct {
	Enabled bool
	State   string // IndexFresh, IndexStale, IndexAbsent or IndexUnknown
	Changed int    // stale: source files changed since the last update
	Rebuild string // stale: why the next use rebuilds it, if it does
}

// The states of the index.
const (
	IndexFresh   = "fresh"   // up to date with the files
	IndexStale   = "stale"   // the next recall or memctl index updates it
	IndexAbsent  = "absent"  // not built yet
	IndexUnknown = "unknown" // it could not be read (see Problems)
)

// Problem is a part of the workspace status could not read.
type Problem struct {
	Part    string // facts, proposals, tasks, runs, index, hooks
	Where   string // file[:line], relative to the workspace root; may be empty
	Message string
}

// Gather reads the workspace's overview at opts.Now. The parts read
// different files, so they are read at the same time: status costs about
// its slowest part (the task graph or the run list), not their sum.
func Gather(ctx context.Context, ws *config.Workspace, opts Options) Status {
	var parts [5]Status // each part fills its own fields and problems
	gather := []func(*Status){
		func(s *Status) { s.gatherFacts(ws) },
		func(s *Status) { s.gatherProposals(ws) },
		func(s *Status) { s.gatherTasks(ws, opts) },
		func(s *Status) { s.gatherRuns(ws.Config.Runs.Enabled, opts) },
		func(s *Status) {
			s.Hooks, s.Problems = Hooks(ws.Root)
			s.gatherIndex(ctx, ws, opts)
		},
	}
	var wg sync.WaitGroup
	for i, fn := range gather {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(&parts[i])
		}()
	}
	wg.Wait()
	s := Status{Facts: parts[0].Facts, Proposals: parts[1].Proposals, Tasks: parts[2].Tasks, Runs: parts[3].Runs,
		Index: parts[4].Index, Hooks: parts[4].Hooks}
	for _, p := range parts { // problems in the order of the parts
		s.Problems = append(s.Problems, p.Problems...)
	}
	return s
}

func (s *Status) problem(part, where string, err error) {
	s.Problems = append(s.Problems, Problem{Part: part, Where: where, Message: err.Error()})
}

func (s *Status) gatherFacts(ws *config.Workspace) {
	cfg := ws.Config.Facts
	s.Facts = Facts{Enabled: cfg.Enabled, MaxLines: cfg.MaxLines, MaxTotalBytes: cfg.MaxTotalBytes}
	if !cfg.Enabled {
		return
	}
	l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
	if err != nil {
		s.problem("facts", config.FactsDir, err)
		return
	}
	s.Facts.Files, s.Facts.Facts = len(l.Files), len(l.Facts())
	s.Facts.Lines, s.Facts.Bytes = l.Lines(), l.Bytes()
	for _, f := range l.Files {
		for _, p := range f.Problems {
			s.Problems = append(s.Problems, Problem{Part: "facts", Where: fmt.Sprintf("%s:%d", f.Path, p.Line), Message: p.Message})
		}
	}
}

func (s *Status) gatherProposals(ws *config.Workspace) {
	s.Proposals.Enabled = ws.Config.Facts.Enabled
	if !s.Proposals.Enabled {
		return
	}
	d := proposal.Dir{Path: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir}
	list, problems, err := d.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.problem("proposals", config.ProposalsDir, err)
		return
	}
	for _, p := range problems {
		s.Problems = append(s.Problems, Problem{Part: "proposals", Where: fmt.Sprintf("%s:%d", p.File, p.Line), Message: p.Message})
	}
	for _, p := range list { // oldest first
		if p.Status != proposal.StatusPending {
			continue
		}
		if s.Proposals.Pending == 0 {
			s.Proposals.Oldest = p.CreatedAt
		}
		s.Proposals.Pending++
	}
}

func (s *Status) gatherTasks(ws *config.Workspace, opts Options) {
	s.Tasks.Enabled = ws.Config.Tasks.Enabled
	if !s.Tasks.Enabled {
		return
	}
	st, err := tasks.LoadCached(ws.Path(config.IssuesFile), opts.TasksCache)
	var le *tasks.LineError
	switch {
	case errors.As(err, &le):
		// The file is refused as a whole until the line is fixed, as every
		// task command refuses it: nothing is counted.
		s.Problems = append(s.Problems, Problem{Part: "tasks", Where: fmt.Sprintf("%s:%d", config.IssuesFile, le.Line), Message: le.Detail()})
		return
	case err != nil:
		s.problem("tasks", config.IssuesFile, err)
		return
	}
	s.Tasks.Stats = tasks.Count(st, opts.Now)
}

func (s *Status) gatherIndex(ctx context.Context, ws *config.Workspace, opts Options) {
	s.Index = Index{Enabled: ws.Config.Index.Enabled}
	if !s.Index.Enabled {
		return
	}
	f, err := index.Check(ctx, opts.IndexDir, ws.Root, opts.IndexSources)
	switch {
	case err != nil:
		s.Index.State = IndexUnknown
		s.problem("index", "", err)
	case !f.Present:
		s.Index.State = IndexAbsent
	case f.Changed > 0 || f.Rebuild != "":
		s.Index.State, s.Index.Changed, s.Index.Rebuild = IndexStale, f.Changed, f.Rebuild
	default:
		s.Index.State = IndexFresh
	}
}

func (s *Status) gatherRuns(enabled bool, opts Options) {
	s.Runs = Runs{Enabled: enabled, Since: opts.Now.Add(-RunsWindow)}
	if !enabled {
		return
	}
	l, err := opts.Runs.List(runs.Filter{Since: s.Runs.Since})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.problem("runs", opts.Runs.Rel, err)
		return
	}
	for _, e := range l.Entries {
		s.Runs.Count++
		if e.Record.Status == runs.StatusFailure {
			s.Runs.Failures++
		}
	}
	for _, p := range l.Problems {
		s.problem("runs", "", p)
	}
}
