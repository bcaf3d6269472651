package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type updateOptions struct {
	status, priority, title, description, notes, appendNotes, design, assignee, deferUntil string
	acceptance, typ, due, externalRef, parent                                              string
	estimate                                                                               int
	addLabels, removeLabels, setLabels                                                     []string
	claim, json                                                                            bool
}

func newUpdateCmd(env *Env) *cobra.Command {
	var opts updateOptions
	cmd := &cobra.Command{
		Use:               "update <id>...",
		ValidArgsFunction: completeIssues(env, anyIssue),
		Short:             "Change tasks, or claim one with --claim (Beads' bd update)",
		Example: `  memctl update app-3f2 --claim --json
  memctl update app-3f2 --status blocked --append-notes "waiting on the API key"
  memctl update app-3f2 app-9c1 --priority P1 --add-label urgent`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpdate(cmd.Context(), env, cmd, args, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.status, "status", "s", "", "new status: open, in_progress, blocked, deferred, closed, pinned, hooked")
	f.StringVarP(&opts.priority, "priority", "p", "", "new priority 0–4 or P0–P4")
	f.StringVar(&opts.title, "title", "", "new title")
	f.StringVarP(&opts.description, "description", "d", "", "new description")
	f.StringVar(&opts.notes, "notes", "", "replace the notes")
	f.StringVar(&opts.appendNotes, "append-notes", "", "add a line to the notes")
	f.StringVar(&opts.design, "design", "", "replace the design notes")
	f.StringVarP(&opts.assignee, "assignee", "a", "", "new assignee (\"\" to clear)")
	f.StringSliceVar(&opts.addLabels, "add-label", nil, "add labels")
	f.StringSliceVar(&opts.removeLabels, "remove-label", nil, "remove labels")
	f.StringSliceVar(&opts.setLabels, "set-labels", nil, "replace every label with these (--set-labels \"\" removes them all)")
	f.StringVar(&opts.acceptance, "acceptance", "", "replace the acceptance criteria")
	f.StringVarP(&opts.typ, "type", "t", "", "new issue `type`")
	f.IntVarP(&opts.estimate, "estimate", "e", 0, "time estimate in `minutes`")
	f.StringVar(&opts.due, "due", "", "due date `when` (as --defer; \"\" clears)")
	f.StringVar(&opts.externalRef, "external-ref", "", "external reference (\"\" clears)")
	f.StringVar(&opts.parent, "parent", "", "reparent under `id` (\"\" removes the parent); the id stays")
	f.StringVar(&opts.deferUntil, "defer", "", "hide from ready until `when` (RFC 3339, YYYY-MM-DD, 3d or 2w; \"\" clears)")
	f.BoolVar(&opts.claim, "claim", false, "assign to yourself and set in_progress; fails (exit 6) if someone else holds it")
	f.BoolVar(&opts.json, "json", false, "print a JSON array of the updated issues (bd's shape)")
	return cmd
}

// updateChangeFlags are update's flags that change something; update
// without any of them would only stamp updated_at.
var updateChangeFlags = []string{"status", "priority", "title", "description", "notes", "append-notes",
	"design", "assignee", "add-label", "remove-label", "set-labels", "acceptance", "type", "estimate", "due",
	"external-ref", "parent", "defer", "claim"}

func runUpdate(ctx context.Context, env *Env, cmd *cobra.Command, ids []string, opts updateOptions) error {
	if !slices.ContainsFunc(updateChangeFlags, cmd.Flags().Changed) {
		return usagef(fmt.Errorf("nothing to change: give at least one of --%s", strings.Join(updateChangeFlags, ", --")))
	}
	var c tasks.Changes
	set := func(name string, dst **string, v string) {
		if cmd.Flags().Changed(name) {
			*dst = &v
		}
	}
	set("status", &c.Status, opts.status)
	set("title", &c.Title, opts.title)
	set("description", &c.Description, opts.description)
	set("notes", &c.Notes, opts.notes)
	set("append-notes", &c.AppendNotes, opts.appendNotes)
	set("design", &c.Design, opts.design)
	set("assignee", &c.Assignee, opts.assignee)
	set("acceptance", &c.Acceptance, opts.acceptance)
	set("type", &c.Type, opts.typ)
	set("external-ref", &c.ExternalRef, opts.externalRef)
	set("parent", &c.Parent, opts.parent)
	c.AddLabels, c.RemoveLabels = opts.addLabels, opts.removeLabels
	if cmd.Flags().Changed("set-labels") {
		var labels []string
		for _, l := range opts.setLabels {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
		c.SetLabels = &labels
	}
	if cmd.Flags().Changed("estimate") {
		if opts.estimate < 0 {
			return usagef(fmt.Errorf("--estimate %d: give minutes ≥ 0", opts.estimate))
		}
		c.EstimatedMinutes = &opts.estimate
	}
	if cmd.Flags().Changed("due") {
		var when time.Time
		if opts.due != "" {
			w, err := parseWhen("due", opts.due, env.Now(), false)
			if err != nil {
				return err
			}
			when = w
		}
		c.Due = &when
	}
	if cmd.Flags().Changed("priority") {
		p, err := parsePriority(opts.priority)
		if err != nil {
			return err
		}
		c.Priority = &p
	}
	if cmd.Flags().Changed("defer") {
		var when time.Time
		if opts.deferUntil != "" {
			w, err := parseWhen("defer", opts.deferUntil, env.Now(), false)
			if err != nil {
				return err
			}
			when = w
		}
		c.Defer = &when
	}
	t, err := env.openTasks(ctx, true)
	if err != nil {
		return err
	}
	who := env.actor(t.ws)
	c.By = who
	return t.change(env, ids, opts.json, func(id string) (*tasks.Issue, error) {
		if opts.claim {
			if _, err := t.store.Claim(id, who, env.Now()); err != nil {
				return nil, err
			}
		}
		return t.store.Update(id, c, env.Now())
	})
}

// change applies fn to each id (going on past failures, as bd does),
// saves the store once if anything changed, prints what changed, and
// returns the first failure.
func (t *taskSession) change(env *Env, ids []string, asJSON bool, fn func(id string) (*tasks.Issue, error)) error {
	var done []*tasks.Issue
	berr := batch(ids, func(id string) error {
		iss, err := fn(id)
		switch {
		case errors.Is(err, errSkipped):
			return nil
		case err == nil:
			done = append(done, iss)
		}
		return err
	})
	if len(done) > 0 {
		if err := t.save(); err != nil {
			return err
		}
	}
	if len(done) > 0 || berr == nil {
		// A command that changed nothing prints nothing on stdout: the
		// error on stderr is the whole answer.
		if err := writeChanged(env, done, asJSON); err != nil {
			return err
		}
	}
	return berr
}

// writeChanged prints the issues a command changed: bd's array of issues
// for --json, else a table.
func writeChanged(env *Env, issues []*tasks.Issue, asJSON bool) error {
	if asJSON {
		out := make([]object, 0, len(issues))
		for _, iss := range issues {
			out = append(out, plainObject(iss))
		}
		return writeJSON(env.Out, out)
	}
	if len(issues) == 0 {
		return nil
	}
	return writeIssueTable(env, issues)
}
