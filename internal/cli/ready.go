package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type readyOptions struct {
	limit      int
	sort       string
	assignee   string
	unassigned bool
	labels     []string
	typ        string
	parent     string
	claim      bool
	json       bool
}

func newReadyCmd(env *Env) *cobra.Command {
	var opts readyOptions
	cmd := &cobra.Command{
		Use:   "ready",
		Short: "List open tasks whose blockers are all closed (Beads' bd ready)",
		Long: `Ready lists the tasks an agent can start now: status open, not pinned or
ephemeral, not deferred (nor a child of a deferred parent), and not blocked
by an open blocks/conditional-blocks target, a blocked parent or an unmet
waits-for gate. The semantics are bd v1.0.5's.`,
		Example: `  memctl ready --json
  memctl ready --limit 5 --sort oldest
  memctl ready --claim --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReady(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.IntVarP(&opts.limit, "limit", "n", 100, "show at most `n` tasks (0 = all)")
	f.StringVar(&opts.sort, "sort", tasks.SortPriority, "order: priority, oldest or hybrid")
	f.StringVarP(&opts.assignee, "assignee", "a", "", "only tasks assigned to `name`")
	f.BoolVar(&opts.unassigned, "unassigned", false, "only unassigned tasks")
	f.StringSliceVarP(&opts.labels, "label", "l", nil, "only tasks with every `label`")
	f.StringVarP(&opts.typ, "type", "t", "", "only tasks of `type`")
	f.StringVar(&opts.parent, "parent", "", "only descendants of `id`")
	f.BoolVar(&opts.claim, "claim", false, "claim the first ready task and print it")
	f.BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

func runReady(ctx context.Context, env *Env, opts readyOptions) error {
	if !slices.Contains([]string{tasks.SortPriority, tasks.SortOldest, tasks.SortHybrid}, opts.sort) {
		return usagef(fmt.Errorf("--sort %q: use priority, oldest or hybrid", opts.sort))
	}
	if opts.limit < 0 {
		return usagef(fmt.Errorf("--limit %d: use 0 (all) or more", opts.limit))
	}
	t, err := env.openTasks(ctx, opts.claim)
	if err != nil {
		return err
	}
	now := env.Now()
	g := tasks.NewGraph(t.store)
	f := tasks.ReadyFilter{Limit: opts.limit, Sort: opts.sort, Assignee: opts.assignee, Unassigned: opts.unassigned,
		Labels: opts.labels, Type: opts.typ, Parent: opts.parent}
	if opts.claim {
		return claimReady(env, t, g, f, opts.json)
	}
	ready, total := g.Ready(f, now)
	if len(ready) < total {
		env.notef("Showing %d of %d ready issues (use --limit 0 to see all)", len(ready), total)
	}
	return writeIssueList(env, g, ready, opts.json, "no ready issues")
}

// claimReady claims the first ready task that is unassigned or already
// the actor's, under the lock openTasks took.
func claimReady(env *Env, t *taskSession, g *tasks.Graph, f tasks.ReadyFilter, asJSON bool) error {
	who := env.actor(t.ws)
	f.Limit = 0
	ready, _ := g.Ready(f, env.Now())
	for _, iss := range ready {
		if iss.Assignee != "" && iss.Assignee != who.Name {
			continue
		}
		claimed, err := t.store.Claim(iss.ID, who, env.Now())
		if err != nil {
			return taskError(err)
		}
		if err := t.save(); err != nil {
			return err
		}
		if asJSON {
			return writeJSON(env.Out, []object{plainObject(claimed)})
		}
		return writeIssueTable(env, []*tasks.Issue{claimed})
	}
	env.notef("no ready issue to claim")
	return writeEmpty(env, asJSON)
}
