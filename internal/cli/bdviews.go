package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

// The read commands bd has beside list: count, search, children, stale.

type countOptions struct {
	filterFlags
	by   map[string]*bool
	json bool
}

func newCountCmd(env *Env) *cobra.Command {
	opts := countOptions{by: map[string]*bool{}}
	cmd := &cobra.Command{
		Use:   "count",
		Short: "Count tasks that match filters, or group them (Beads' bd count)",
		Example: `  memctl count --status open --json
  memctl count --by-status`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCount(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	opts.register(f)
	for _, k := range tasks.GroupKeys {
		opts.by[k] = f.Bool("by-"+k, false, "count per "+k)
	}
	f.BoolVar(&opts.json, "json", false, "print bd's JSON: {count} or {groups, total}")
	return cmd
}

func runCount(ctx context.Context, env *Env, opts countOptions) error {
	var by []string
	for _, k := range tasks.GroupKeys {
		if *opts.by[k] {
			by = append(by, "--by-"+k)
		}
	}
	if len(by) > 1 {
		return usagef(fmt.Errorf("give one of %s, not several", strings.Join(by, ", ")))
	}
	filter, err := opts.filter(env.Now())
	if err != nil {
		return err
	}
	filter.All = true // bd count counts closed issues too
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	group := ""
	if len(by) > 0 {
		group = strings.TrimPrefix(by[0], "--by-")
	}
	total, groups, err := filter.Count(t.store, tasks.NewGraph(t.store), group)
	if err != nil {
		return err
	}
	if len(by) == 0 {
		if opts.json {
			return writeJSON(env.Out, struct {
				Count         int `json:"count"`
				SchemaVersion int `json:"schema_version"`
			}{total, bdSchemaVersion})
		}
		_, err := fmt.Fprintln(env.Out, total)
		return err
	}
	if opts.json {
		return writeJSON(env.Out, struct {
			Groups        []tasks.Group `json:"groups"`
			SchemaVersion int           `json:"schema_version"`
			Total         int           `json:"total"`
		}{groups, bdSchemaVersion, total})
	}
	fmt.Fprintf(env.Out, "Total: %d\n\n", total)
	for _, g := range groups {
		fmt.Fprintf(env.Out, "%s: %d\n", visibleLine(g.Group), g.Count)
	}
	return nil
}

type searchOptions struct {
	filterFlags
	query string
	limit int
	json  bool
}

func newSearchCmd(env *Env) *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   "search [query]",
		Short: "Find tasks whose title, description or id holds a text (Beads' bd search)",
		Long: `Search lists the tasks whose title, description or id holds the query,
in any case, as bd search does: closed ones only with --status closed or
--status all. It matches text; memctl recall searches by meaning.`,
		Example: `  memctl search "login timeout" --json
  memctl search parser --status all`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if opts.query != "" && opts.query != args[0] {
					return usagef(errors.New("give the query as an argument or with --query, not both"))
				}
				opts.query = args[0]
			}
			return runSearch(cmd.Context(), env, opts)
		},
	}
	f := cmd.Flags()
	opts.register(f)
	f.StringVar(&opts.query, "query", "", "the `text` to find (instead of the argument)")
	f.IntVarP(&opts.limit, "limit", "n", 50, "show at most `n` tasks (0 = all)")
	f.BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

func runSearch(ctx context.Context, env *Env, opts searchOptions) error {
	if strings.TrimSpace(opts.query) == "" {
		return usagef(errors.New("give a query: memctl search \"text\""))
	}
	all := opts.status == "all"
	if all {
		opts.status = ""
	}
	filter, err := opts.filter(env.Now())
	if err != nil {
		return err
	}
	filter.Query, filter.All = opts.query, all
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	g := tasks.NewGraph(t.store)
	out, total := filter.Find(t.store, g, tasks.SortPriority, env.Now(), opts.limit)
	if len(out) < total {
		env.notef("Showing %d of %d issues (use --limit 0 to see all)", len(out), total)
	}
	return writeIssueList(env, g, out, opts.json, fmt.Sprintf("No issues found matching %q", opts.query))
}

func newChildrenCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "children <id>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "List the direct children of a task (Beads' bd children)",
		Example:           "  memctl children app-3f2 --json",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := env.openTasks(cmd.Context(), false)
			if err != nil {
				return err
			}
			if _, err := t.store.Get(args[0]); err != nil {
				return taskError(err)
			}
			g := tasks.NewGraph(t.store)
			kids := slices.Clone(g.Children(args[0]))
			tasks.SortIssues(kids, tasks.SortPriority, env.Now())
			return writeIssueList(env, g, kids, asJSON, fmt.Sprintf("%s has no children", args[0]))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

type staleOptions struct {
	days, limit int
	status      string
	json        bool
}

func newStaleCmd(env *Env) *cobra.Command {
	var opts staleOptions
	cmd := &cobra.Command{
		Use:     "stale",
		Short:   "List open tasks not updated for a while, least recent first (Beads' bd stale)",
		Example: "  memctl stale --days 14 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.days < 1 {
				return usagef(errors.New("--days must be at least 1"))
			}
			if opts.status != "" && (!tasks.ValidStatus(opts.status) || opts.status == tasks.StatusClosed) {
				return usagef(fmt.Errorf("--status %q: use open, in_progress, blocked or deferred", opts.status))
			}
			t, err := env.openTasks(cmd.Context(), false)
			if err != nil {
				return err
			}
			out := tasks.Stale(t.store.Issues(), opts.days, opts.status, env.Now())
			if opts.limit > 0 && len(out) > opts.limit {
				out = out[:opts.limit]
			}
			return writeIssueList(env, tasks.NewGraph(t.store), out, opts.json, "no stale issues")
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.days, "days", "d", 30, "not updated in this many `days`")
	f.IntVarP(&opts.limit, "limit", "n", 50, "show at most `n` tasks (0 = all)")
	f.StringVarP(&opts.status, "status", "s", "", "only this status (open, in_progress, blocked, deferred)")
	f.BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}
