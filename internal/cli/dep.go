package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

func newDepCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dep",
		Short: "Manage dependencies between tasks (Beads' bd dep)",
		Example: `  memctl dep add app-9c1 app-3f2            # app-9c1 depends on (is blocked by) app-3f2
  memctl dep tree app-9c1 --json
  memctl dep cycles`,
	}
	cmd.AddCommand(newDepAddCmd(env), newDepRemoveCmd(env), newDepListCmd(env), newDepTreeCmd(env), newDepCyclesCmd(env))
	return groupCommand(cmd)
}

type depOptions struct {
	typ       string
	blockedBy string
	dependsOn string
	direction string
	maxDepth  int
	json      bool
}

func newDepAddCmd(env *Env) *cobra.Command {
	var opts depOptions
	cmd := &cobra.Command{
		Use:               "add <issue> [<depends-on>]",
		ValidArgsFunction: completeIssuesUpTo(env, 2),
		Short:             "Record that an issue depends on another; cycles of blocking edges are refused",
		Example:           "  memctl dep add app-9c1 app-3f2\n  memctl dep add app-9c1 --blocked-by app-3f2\n  memctl dep add app-9c1 app-3f2 --type related --json",
		Args: func(_ *cobra.Command, args []string) error {
			by := opts.blockedBy + opts.dependsOn
			switch {
			case opts.blockedBy != "" && opts.dependsOn != "":
				return usagef(errors.New("give --blocked-by or --depends-on, not both (they mean the same)"))
			case by != "" && len(args) != 1:
				return usagef(fmt.Errorf("with --blocked-by, give one issue: memctl dep add <issue> --blocked-by %s", by))
			case by == "" && len(args) != 2:
				return usagef(fmt.Errorf("dep add takes <issue> <depends-on> (or <issue> --blocked-by <id>); got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if by := opts.blockedBy + opts.dependsOn; by != "" {
				args = append(args, by)
			}
			return runDepChange(cmd.Context(), env, args, opts, true)
		},
	}
	cmd.Flags().StringVarP(&opts.typ, "type", "t", tasks.DepBlocks, "dependency `type`: blocks, related, parent-child, discovered-from, waits-for, …")
	cmd.Flags().StringVar(&opts.blockedBy, "blocked-by", "", "the `id` the issue depends on (instead of the second argument)")
	cmd.Flags().StringVar(&opts.dependsOn, "depends-on", "", "the same as --blocked-by")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print bd's result object: issue_id, depends_on_id, status (and type)")
	return cmd
}

func newDepRemoveCmd(env *Env) *cobra.Command {
	var opts depOptions
	cmd := &cobra.Command{
		Use:               "remove <issue> <depends-on>",
		ValidArgsFunction: completeIssuesUpTo(env, 2),
		Aliases:           []string{"rm"},
		Short:             "Remove a dependency",
		Example:           "  memctl dep remove app-9c1 app-3f2 --json",
		Args:              cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDepChange(cmd.Context(), env, args, opts, false)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print bd's result object: issue_id, depends_on_id, status (and type)")
	return cmd
}

func runDepChange(ctx context.Context, env *Env, args []string, opts depOptions, add bool) error {
	t, err := env.openTasks(ctx, true)
	if err != nil {
		return err
	}
	from, to := args[0], args[1]
	if add {
		err = t.store.AddDep(from, to, opts.typ, env.actor(t.ws), env.Now())
	} else {
		err = t.store.RemoveDep(from, to, env.Now())
	}
	if err != nil {
		return taskError(err)
	}
	if err := t.save(); err != nil {
		return err
	}
	if opts.json {
		return writeJSON(env.Out, depChangeJSON(from, to, opts.typ, add))
	}
	if add {
		env.notef("added dependency: %s depends on %s (%s)", from, to, opts.typ)
	} else {
		env.notef("removed dependency: %s no longer depends on %s", from, to)
	}
	return nil
}

func newDepListCmd(env *Env) *cobra.Command {
	var opts depOptions
	cmd := &cobra.Command{
		Use:               "list <id>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "List what an issue depends on (--direction up: its dependents)",
		Example:           "  memctl dep list app-9c1 --json\n  memctl dep list app-3f2 --direction up",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDepList(cmd.Context(), env, args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.direction, "direction", "down", "down (dependencies) or up (dependents)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of issues with dependency_type")
	return cmd
}

func runDepList(ctx context.Context, env *Env, id string, opts depOptions) error {
	if opts.direction != "down" && opts.direction != "up" {
		return usagef(fmt.Errorf("--direction %q: use down or up", opts.direction))
	}
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	iss, err := t.store.Get(id)
	if err != nil {
		return taskError(err)
	}
	g := tasks.NewGraph(t.store)
	nodes := g.Tree(iss, opts.direction, 1)[1:]
	out := make([]object, 0, len(nodes))
	tb := newTable(env, "ID", "TYPE", "STATUS", "TITLE")
	for _, n := range nodes {
		out = append(out, plainObject(n.Issue).with("dependency_type", n.Edge))
		tb.row(n.Issue.ID, n.Edge, n.Issue.Status, n.Issue.Title)
	}
	if opts.json {
		return writeJSON(env.Out, out)
	}
	return tb.flush()
}

func newDepTreeCmd(env *Env) *cobra.Command {
	var opts depOptions
	cmd := &cobra.Command{
		Use:               "tree <id>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "Show the dependency tree of an issue",
		Example:           "  memctl dep tree app-9c1\n  memctl dep tree app-3f2 --direction up --max-depth 3 --json",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDepTree(cmd.Context(), env, args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.direction, "direction", "down", "down (dependencies), up (dependents) or both")
	cmd.Flags().IntVar(&opts.maxDepth, "max-depth", 50, "stop at this depth")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of tree nodes (bd's shape)")
	return cmd
}

func runDepTree(ctx context.Context, env *Env, id string, opts depOptions) error {
	if opts.direction != "down" && opts.direction != "up" && opts.direction != "both" {
		return usagef(fmt.Errorf("--direction %q: use down, up or both", opts.direction))
	}
	if opts.maxDepth < 1 {
		return usagef(fmt.Errorf("--max-depth %d: use 1 or more", opts.maxDepth))
	}
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	iss, err := t.store.Get(id)
	if err != nil {
		return taskError(err)
	}
	nodes := tasks.NewGraph(t.store).Tree(iss, opts.direction, opts.maxDepth)
	if opts.json {
		out := make([]object, 0, len(nodes))
		for _, n := range nodes {
			o := plainObject(n.Issue).with("depth", n.Depth).with("parent_id", n.ParentID)
			if n.Depth > 0 {
				o = o.with("edge_from_parent", n.Edge)
			}
			out = append(out, o.with("truncated", n.Truncated))
		}
		return writeJSON(env.Out, out)
	}
	for _, n := range nodes {
		edge := ""
		if n.Depth > 0 {
			edge = " (" + n.Edge + ")"
		}
		more := ""
		if n.Truncated {
			more = " …"
		}
		fmt.Fprintf(env.Out, "%s%s [%s P%d] %s%s%s\n", strings.Repeat("  ", n.Depth), visibleLine(n.Issue.ID), visibleLine(n.Issue.Status), n.Issue.Priority, visibleLine(n.Issue.Title), visibleLine(edge), more)
	}
	return nil
}

func newDepCyclesCmd(env *Env) *cobra.Command {
	var opts depOptions
	cmd := &cobra.Command{
		Use:     "cycles",
		Short:   "Find cycles among blocking dependencies",
		Example: "  memctl dep cycles --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := env.openTasks(cmd.Context(), false)
			if err != nil {
				return err
			}
			cycles := tasks.NewGraph(t.store).Cycles()
			if opts.json {
				return writeJSON(env.Out, nonNil(cycles))
			}
			if len(cycles) == 0 {
				env.notef("no dependency cycles")
			}
			for _, c := range cycles {
				fmt.Fprintln(env.Out, visibleLine(strings.Join(c, " → ")))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of cycles, each an array of ids")
	return cmd
}

// depChangeJSON is bd's --json result of dep add (status "added", with
// the type) and dep remove (status "removed", no type), keys in bd's
// order.
func depChangeJSON(from, to, typ string, add bool) any {
	if add {
		return struct {
			DependsOnID   string `json:"depends_on_id"`
			IssueID       string `json:"issue_id"`
			SchemaVersion int    `json:"schema_version"`
			Status        string `json:"status"`
			Type          string `json:"type"`
		}{to, from, bdSchemaVersion, "added", typ}
	}
	return struct {
		DependsOnID   string `json:"depends_on_id"`
		IssueID       string `json:"issue_id"`
		SchemaVersion int    `json:"schema_version"`
		Status        string `json:"status"`
	}{to, from, bdSchemaVersion, "removed"}
}
