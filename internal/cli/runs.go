package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

// runsSession is the run store of the workspace.
type runsSession struct {
	ws    *config.Workspace
	store runs.Store
	off   bool // [runs] enabled = false: reads see no runs
}

// openRuns opens the run store (app.Session.Runs). With write set it
// first takes the workspace lock. A disabled layer reads as empty and
// refuses writes.
func (e *Env) openRuns(ctx context.Context, write bool) (*runsSession, error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, err
	}
	rs, err := e.session(ws).Runs(ctx, write)
	if err != nil {
		return nil, err
	}
	return &runsSession{ws: rs.WS, store: rs.Store, off: rs.Off}, nil
}

// runStore is the workspace's run store.
func runStore(ws *config.Workspace) runs.Store { return app.RunStore(ws) }

type runsOptions struct {
	task, status, since string
	limit               int
	json                bool
}

func newRunsCmd(env *Env) *cobra.Command {
	var opts runsOptions
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List run records, newest first",
		Long: `Runs lists the run records in .ledger/runs, newest first (by started_at).
A record file that cannot be read is named on stderr, with its line and field,
and left out; the others are listed.`,
		Example: `  memctl runs --task app-3f2 --json
  memctl runs --status failure --since 7d
  memctl runs show r-abc --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRuns(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.task, "task", "", "only runs that worked on this task `id`")
	f.StringVar(&opts.status, "status", "", "only runs with this status (success, failure, partial, unknown)")
	f.StringVar(&opts.since, "since", "", "only runs active since `when`: a time, a date or a duration ago (7d)")
	f.IntVar(&opts.limit, "limit", 0, "show at most `n` runs (0: all)")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	cmd.AddCommand(newRunsShowCmd(env))
	return cmd
}

func runRuns(ctx context.Context, env *Env, opts runsOptions) error {
	if opts.status != "" && !slices.Contains(runs.Statuses, opts.status) {
		return usagef(fmt.Errorf("--status %q: use success, failure, partial or unknown", opts.status))
	}
	if opts.limit < 0 {
		return usagef(fmt.Errorf("--limit %d: want 0 (all) or more", opts.limit))
	}
	f := runs.Filter{TaskID: opts.task, Status: opts.status, Limit: opts.limit}
	if opts.since != "" {
		t, err := parseWhen("since", opts.since, env.Now(), true)
		if err != nil {
			return err
		}
		f.Since = t
	}
	rs, err := env.openRuns(ctx, false)
	if err != nil {
		return err
	}
	var l runs.Listing
	if !rs.off {
		if l, err = rs.store.List(f); err != nil {
			return err
		}
	}
	for _, p := range l.Problems {
		env.warnf("%v (left out; fix it by hand)", p)
	}
	if opts.json {
		return writeRunList(env.Out, l.Entries)
	}
	if len(l.Entries) == 0 {
		env.notef("no runs")
		return nil
	}
	t := newTable(env, "RUN", "STARTED", "STATUS", "TASKS", "INTENT").clipToWidth()
	for _, e := range l.Entries {
		r := e.Record
		t.row(r.RunID, dash(formatTime(r.StartedAt)), r.StatusOrUnknown(), dash(strings.Join(r.TaskIDs, ",")), dash(oneLine(r.Digest.Intent)))
	}
	return t.flush()
}

type runsShowOptions struct{ json bool }

func newRunsShowCmd(env *Env) *cobra.Command {
	var opts runsShowOptions
	cmd := &cobra.Command{
		Use:     "show <run_id>",
		Short:   "Show one run record",
		Example: "  memctl runs show r-abc --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRunsShow(cmd.Context(), env, args[0], opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runRunsShow(ctx context.Context, env *Env, id string, opts runsShowOptions) error {
	rs, err := env.openRuns(ctx, false)
	if err != nil {
		return err
	}
	if rs.off {
		return withHint(&notFoundError{fmt.Errorf("run %q: %w", id, runs.ErrNotFound)}, "the runs layer is disabled; set [runs] enabled = true in "+config.ConfigFile)
	}
	if !runs.ValidRunID(id) {
		return usagef(fmt.Errorf("%q is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", id))
	}
	e, err := rs.store.Get(id)
	if err != nil {
		return runError(err)
	}
	return writeRun(env, e, opts.json)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// writeRun prints one run: its JSON, or for a person a field per line and
// the lists below.
func writeRun(env *Env, e runs.Entry, asJSON bool) error {
	if asJSON {
		return writeJSON(env.Out, runOneJSON{SchemaVersion: schemaVersion, Run: toRunJSON(e)})
	}
	r := e.Record
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-9s %s\n", k, visibleLine(v))
		}
	}
	line("run", r.RunID)
	line("file", filepath.ToSlash(e.Path))
	line("status", r.StatusOrUnknown())
	line("session", r.SessionID)
	line("agent", strings.TrimSpace(r.Agent.Runtime+" "+r.Agent.Model))
	line("tasks", strings.Join(r.TaskIDs, ", "))
	line("repo", r.Repo)
	line("branch", r.Branch)
	line("commit", r.CommitSHA)
	line("started", formatTime(r.StartedAt))
	line("ended", formatTime(r.EndedAt))
	block := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n%s:\n%s\n", k, indent(visible(v)))
		}
	}
	block("intent", r.Digest.Intent)
	block("result", r.Digest.Result)
	block("compact summary", r.CompactSummary())
	list := func(k string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", k)
		for _, it := range items {
			fmt.Fprintf(&b, "  - %s\n", strings.ReplaceAll(visible(it), "\n", "\n    "))
		}
	}
	list("changes", r.Digest.Changes)
	list("decisions", r.Digest.Decisions)
	list("gotchas", r.Digest.Gotchas)
	list("next steps", r.Digest.NextSteps)
	list("files changed", r.FilesChanged)
	var cmds, tests, errs []string
	for _, c := range r.Commands {
		cmds = append(cmds, "exit "+strconv.Itoa(c.ExitCode)+": "+c.Cmd)
	}
	for _, t := range r.Tests {
		tests = append(tests, t.Status+" "+t.Name)
	}
	for _, x := range r.Errors {
		where := x.File
		if x.Line > 0 {
			where += ":" + strconv.Itoa(x.Line)
		}
		errs = append(errs, strings.TrimSpace(strings.TrimSpace(x.Signature+" "+where)+"\n"+x.Excerpt))
	}
	list("commands", cmds)
	list("tests", tests)
	list("errors", errs)
	list("artifacts", r.ArtifactRefs)
	_, err := fmt.Fprint(env.Out, b.String())
	return err
}
