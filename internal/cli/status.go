package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/hooks"
	"github.com/memctl/memctl/internal/status"
)

// statusJSON is the --json shape of status (memctl help json).
type statusJSON struct {
	SchemaVersion int                 `json:"schema_version"`
	Facts         statusFactsJSON     `json:"facts"`
	Proposals     statusProposalsJSON `json:"proposals"`
	Tasks         statusTasksJSON     `json:"tasks"`
	Runs          statusRunsJSON      `json:"runs"`
	Index         statusIndexJSON     `json:"index"`
	Hooks         []statusHookJSON    `json:"hooks"`
	Problems      []statusProblemJSON `json:"problems"`
}

type statusFactsJSON struct {
	Enabled       bool `json:"enabled"`
	Files         int  `json:"files"`
	Facts         int  `json:"facts"`
	Lines         int  `json:"lines"`
	MaxLines      int  `json:"max_lines"`
	Bytes         int  `json:"bytes"`
	MaxTotalBytes int  `json:"max_total_bytes"`
}

type statusProposalsJSON struct {
	Enabled bool       `json:"enabled"`
	Pending int        `json:"pending"`
	Oldest  *time.Time `json:"oldest_created_at"` // null when none is pending
}

type statusTasksJSON struct {
	Enabled    bool `json:"enabled"`
	Total      int  `json:"total"`
	Open       int  `json:"open"`
	InProgress int  `json:"in_progress"`
	Closed     int  `json:"closed"`
	Blocked    int  `json:"blocked"`
	Deferred   int  `json:"deferred"`
	Pinned     int  `json:"pinned"`
	Ready      int  `json:"ready"`
}

type statusRunsJSON struct {
	Enabled  bool      `json:"enabled"`
	Since    time.Time `json:"since"`
	Count    int       `json:"count"`
	Failures int       `json:"failures"`
}

type statusIndexJSON struct {
	Enabled bool   `json:"enabled"`
	State   string `json:"state"`         // fresh, stale, absent, unknown; "" when off
	Changed int    `json:"changed_files"` // stale: files changed since the last update
	Rebuild string `json:"rebuild"`       // stale: why the next use rebuilds it, or ""
}

type statusHookJSON struct {
	Runtime   string `json:"runtime"`
	File      string `json:"file"`
	Installed bool   `json:"installed"` // memctl's hooks are there, current or outdated
	State     string `json:"state"`     // installed, outdated, not_installed, unknown (as hooks status)
}

type statusProblemJSON struct {
	Part    string `json:"part"`
	Where   string `json:"where"`
	Message string `json:"message"`
}

func newStatusCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the workspace on one screen: facts, proposals, tasks, runs, index, hooks",
		Long: `Status reads the workspace and shows facts against their budgets, pending
proposals, task counts, the runs of the last 7 days, whether the recall index
exists, and which agent runtimes have memctl hooks. A part it cannot read is
shown as a problem line and the rest is still shown (exit 0). It never builds
the index or takes the workspace lock.`,
		Example: "  memctl status\n  memctl status --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runStatus(cmd.Context(), env, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runStatus(ctx context.Context, env *Env, asJSON bool) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	now := env.Now()
	s := status.Gather(ctx, ws, status.Options{TasksCache: tasksCachePath(ws), Runs: runStore(ws),
		IndexDir: indexDir(ws), IndexSources: env.sources(ws), Now: now})
	if asJSON {
		return writeJSON(env.Out, toStatusJSON(s))
	}
	return writeStatus(env, s, now)
}

func toStatusJSON(s status.Status) statusJSON {
	f, p, t, r := s.Facts, s.Proposals, s.Tasks, s.Runs
	out := statusJSON{SchemaVersion: schemaVersion,
		Facts: statusFactsJSON{Enabled: f.Enabled, Files: f.Files, Facts: f.Facts, Lines: f.Lines, MaxLines: f.MaxLines,
			Bytes: f.Bytes, MaxTotalBytes: f.MaxTotalBytes},
		Proposals: statusProposalsJSON{Enabled: p.Enabled, Pending: p.Pending},
		Tasks: statusTasksJSON{Enabled: t.Enabled, Total: t.Total, Open: t.Open, InProgress: t.InProgress, Closed: t.Closed,
			Blocked: t.Blocked, Deferred: t.Deferred, Pinned: t.Pinned, Ready: t.Ready},
		Runs:     statusRunsJSON{Enabled: r.Enabled, Since: r.Since.UTC(), Count: r.Count, Failures: r.Failures},
		Index:    statusIndexJSON{Enabled: s.Index.Enabled, State: s.Index.State, Changed: s.Index.Changed, Rebuild: s.Index.Rebuild},
		Hooks:    make([]statusHookJSON, 0, len(s.Hooks)),
		Problems: make([]statusProblemJSON, 0, len(s.Problems)),
	}
	if p.Pending > 0 {
		oldest := p.Oldest.UTC()
		out.Proposals.Oldest = &oldest
	}
	for _, h := range s.Hooks {
		out.Hooks = append(out.Hooks, statusHookJSON{Runtime: h.Runtime, File: h.File, Installed: h.Installed, State: h.State})
	}
	for _, pr := range s.Problems {
		out.Problems = append(out.Problems, statusProblemJSON{Part: pr.Part, Where: pr.Where, Message: pr.Message})
	}
	return out
}

// writeStatus prints one row per part, then a row per problem.
func writeStatus(env *Env, s status.Status, now time.Time) error {
	t := newTable(env, "PART", "STATUS")
	f := s.Facts
	t.row("facts", onOff(f.Enabled, "facts", func() string {
		return fmt.Sprintf("%s in %s; %d/%d lines (%s), %d/%d bytes (%s)", plural(f.Facts, "fact"), plural(f.Files, "file"),
			f.Lines, f.MaxLines, overBudget(f.Lines, f.MaxLines), f.Bytes, f.MaxTotalBytes, overBudget(f.Bytes, f.MaxTotalBytes))
	}))
	p := s.Proposals
	t.row("proposals", onOff(p.Enabled, "facts", func() string {
		if p.Pending == 0 {
			return "none pending"
		}
		return fmt.Sprintf("%d pending, oldest %s old (%s)", p.Pending, age(now.Sub(p.Oldest)), formatTime(p.Oldest))
	}))
	k := s.Tasks
	t.row("tasks", onOff(k.Enabled, "tasks", func() string {
		line := fmt.Sprintf("%d ready; %d open, %d in progress, %d blocked, %d closed", k.Ready, k.Open, k.InProgress, k.Blocked, k.Closed)
		if k.Deferred > 0 {
			line += fmt.Sprintf(", %d deferred", k.Deferred)
		}
		if k.Pinned > 0 {
			line += fmt.Sprintf(", %d pinned", k.Pinned)
		}
		return line
	}))
	r := s.Runs
	t.row("runs", onOff(r.Enabled, "runs", func() string {
		return fmt.Sprintf("%s in the last 7 days, %d failed", plural(r.Count, "run"), r.Failures)
	}))
	t.row("index", onOff(s.Index.Enabled, "index", func() string { return indexLine(s.Index) }))
	t.row("hooks", hooksLine(s.Hooks))
	for _, pr := range s.Problems {
		where := pr.Where
		if where != "" {
			where += ": "
		}
		t.row("problem", pr.Part+": "+where+pr.Message)
	}
	return t.flush()
}

func indexLine(x status.Index) string {
	switch x.State {
	case status.IndexFresh:
		return "up to date"
	case status.IndexAbsent:
		return `not built ("memctl index" or the first "memctl recall" builds it)`
	case status.IndexStale:
		if x.Rebuild != "" {
			return fmt.Sprintf(`to be rebuilt: %s ("memctl index" rebuilds it)`, x.Rebuild)
		}
		return fmt.Sprintf(`%s changed since the last update ("memctl index" or the next "memctl recall" updates it)`, plural(x.Changed, "file"))
	default:
		return "unknown (see the problem below)"
	}
}

// onOff is a part's line, or that its layer is switched off.
func onOff(enabled bool, layer string, line func() string) string {
	if !enabled {
		return "off ([" + layer + "] enabled = false in " + config.ConfigFile + ")"
	}
	return line()
}

func hooksLine(list []status.Hook) string {
	var on, old, off, unknown []string
	for _, h := range list {
		switch h.State {
		case hooks.Installed:
			on = append(on, h.Runtime)
		case hooks.Outdated:
			old = append(old, h.Runtime)
		case hooks.Unknown:
			unknown = append(unknown, h.Runtime)
		default:
			off = append(off, h.Runtime)
		}
	}
	var parts []string
	for _, p := range []struct {
		label string
		names []string
	}{{"installed", on}, {"outdated", old}, {"not installed", off}, {"unreadable", unknown}} {
		if len(p.names) > 0 {
			parts = append(parts, p.label+": "+strings.Join(p.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// age is a duration as a person reads an age: days, else hours, else minutes.
func age(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	case d >= time.Hour:
		return plural(int(d/time.Hour), "hour")
	default:
		return plural(max(int(d/time.Minute), 0), "minute")
	}
}
