package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type listOptions struct {
	filterFlags
	parent string
	all    bool
	limit  int
	ready  bool
	json   bool
}

func newListCmd(env *Env) *cobra.Command {
	var opts listOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tasks (Beads' bd list); closed and pinned ones only with --all or --status",
		Example: `  memctl list --json
  memctl list --status in_progress --assignee alice
  memctl list --parent app-3f2 --json
  memctl list --all --limit 0 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runList(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	opts.register(f)
	f.StringVar(&opts.parent, "parent", "", "only the direct children of `id`")
	f.BoolVar(&opts.all, "all", false, "include closed and pinned tasks")
	f.IntVarP(&opts.limit, "limit", "n", 50, "show at most `n` tasks (0 = all)")
	f.BoolVar(&opts.ready, "ready", false, "only ready tasks (as memctl ready)")
	f.BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

func runList(ctx context.Context, env *Env, opts listOptions) error {
	filter, err := opts.filter(env.Now())
	if err != nil {
		return err
	}
	filter.All, filter.Parent = opts.all, opts.parent
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	g := tasks.NewGraph(t.store)
	if opts.parent != "" {
		if _, err := t.store.Get(opts.parent); err != nil {
			return taskError(err)
		}
	}
	var out []*tasks.Issue
	total := 0
	if opts.ready {
		pool, _ := g.Ready(tasks.ReadyFilter{Sort: tasks.SortPriority}, env.Now())
		out = filter.Select(t.store, g, pool)
		total = len(out)
		if opts.limit > 0 && total > opts.limit {
			out = out[:opts.limit]
		}
	} else {
		out, total = filter.Find(t.store, g, tasks.SortPriority, env.Now(), opts.limit)
	}
	if len(out) < total {
		env.notef("Showing %d of %d issues (use --limit 0 to see all)", len(out), total)
	}
	return writeIssueList(env, g, out, opts.json, "no issues")
}
