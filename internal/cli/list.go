package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type listOptions struct {
	status   string
	typ      string
	labels   []string
	assignee string
	priority string
	all      bool
	limit    int
	ready    bool
	json     bool
}

func newListCmd(env *Env) *cobra.Command {
	var opts listOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tasks (Beads' bd list); closed and pinned ones only with --all or --status",
		Example: `  memctl list --json
  memctl list --status in_progress --assignee alice
  memctl list --all --limit 0 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runList(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.status, "status", "s", "", "only `statuses` (comma-separated)")
	f.StringVarP(&opts.typ, "type", "t", "", "only this `type`")
	f.StringSliceVarP(&opts.labels, "label", "l", nil, "only tasks with every `label`")
	f.StringVarP(&opts.assignee, "assignee", "a", "", "only tasks assigned to `name`")
	f.StringVarP(&opts.priority, "priority", "p", "", "only this priority (0–4 or P0–P4)")
	f.BoolVar(&opts.all, "all", false, "include closed and pinned tasks")
	f.IntVarP(&opts.limit, "limit", "n", 50, "show at most `n` tasks (0 = all)")
	f.BoolVar(&opts.ready, "ready", false, "only ready tasks (as memctl ready)")
	f.BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

func runList(ctx context.Context, env *Env, opts listOptions) error {
	prio := -1
	if opts.priority != "" {
		p, err := parsePriority(opts.priority)
		if err != nil {
			return err
		}
		prio = p
	}
	var statuses []string
	for _, s := range strings.Split(opts.status, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if !tasks.ValidStatus(s) {
				return usagef(fmt.Errorf("--status %q: unknown status", s))
			}
			statuses = append(statuses, s)
		}
	}
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	g := tasks.NewGraph(t.store)
	var pool []*tasks.Issue
	if opts.ready {
		pool, _ = g.Ready(tasks.ReadyFilter{Sort: tasks.SortPriority}, env.Now())
	} else {
		pool = t.store.Issues()
		tasks.SortIssues(pool, tasks.SortPriority, env.Now())
	}
	var out []*tasks.Issue
	for _, iss := range pool {
		switch {
		case len(statuses) > 0 && !slices.Contains(statuses, iss.Status):
		case len(statuses) == 0 && !opts.all && (iss.Status == tasks.StatusClosed || iss.Status == tasks.StatusPinned):
		case opts.typ != "" && iss.IssueType != opts.typ:
		case opts.assignee != "" && iss.Assignee != opts.assignee:
		case prio >= 0 && iss.Priority != prio:
		case !containsAll(iss.Labels, opts.labels):
		default:
			out = append(out, iss)
		}
	}
	if opts.limit > 0 && len(out) > opts.limit {
		env.notef("Showing %d of %d issues (use --limit 0 to see all)", opts.limit, len(out))
		out = out[:opts.limit]
	}
	return writeIssueList(env, g, out, opts.json, "no issues")
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
