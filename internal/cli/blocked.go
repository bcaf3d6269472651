package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

type blockedOptions struct {
	json bool
}

func newBlockedCmd(env *Env) *cobra.Command {
	var opts blockedOptions
	cmd := &cobra.Command{
		Use:     "blocked",
		Short:   "List blocked tasks and what blocks them (Beads' bd blocked)",
		Example: "  memctl blocked\n  memctl blocked --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runBlocked(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	return cmd
}

func runBlocked(ctx context.Context, env *Env, opts blockedOptions) error {
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	g := tasks.NewGraph(t.store)
	blocked := g.Blocked()
	if opts.json {
		return writeBlockedJSON(env.Out, g, blocked)
	}
	if len(blocked) == 0 {
		env.notef("no blocked issues")
		return nil
	}
	tb := newTable(env, "ID", "PRI", "STATUS", "BLOCKED BY", "TITLE")
	for _, iss := range blocked {
		tb.row(iss.ID, "P"+string(rune('0'+iss.Priority)), iss.Status, strings.Join(g.BlockedBy(iss), ","), iss.Title)
	}
	return tb.flush()
}

// writeBlockedJSON prints bd's blocked objects: each issue with the ids
// that block it.
func writeBlockedJSON(w io.Writer, g *tasks.Graph, blocked []*tasks.Issue) error {
	a := newJSONArray(w)
	var o app.Object
	for _, iss := range blocked {
		by := g.BlockedBy(iss)
		o = app.AppendPlainObject(o[:0], iss).With("blocked_by_count", len(by)).With("blocked_by", by)
		a.add(object(o))
	}
	return a.close()
}
