package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

type showOptions struct {
	json, comments, dependents bool
}

func newShowCmd(env *Env) *cobra.Command {
	var opts showOptions
	cmd := &cobra.Command{
		Use:               "show <id>...",
		ValidArgsFunction: completeIssues(env, anyIssue),
		Short:             "Show tasks in detail (Beads' bd show)",
		Example:           "  memctl show app-3f2\n  memctl show app-3f2 app-9c1 --json",
		Args:              cobra.MinimumNArgs(1),
		RunE:              func(cmd *cobra.Command, args []string) error { return runShow(cmd.Context(), env, args, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array (bd's shape)")
	cmd.Flags().BoolVar(&opts.comments, "include-comments", false, "with --json, add each issue's comments")
	cmd.Flags().BoolVar(&opts.dependents, "include-dependents", false, "with --json, add the issues that depend on each one, with the edge's type")
	return cmd
}

func runShow(ctx context.Context, env *Env, ids []string, opts showOptions) error {
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	g := tasks.NewGraph(t.store)
	var found []*tasks.Issue
	err = batch(ids, func(id string) error {
		iss, err := t.store.Get(id)
		if err == nil {
			found = append(found, iss)
		}
		return err
	})
	if len(found) == 0 {
		return err
	}
	if opts.json {
		out := make([]object, 0, len(found))
		for _, iss := range found {
			out = append(out, object(app.ShowObjectWith(g, iss, t.store, app.ShowOptions{Comments: opts.comments, Dependents: opts.dependents})))
		}
		if werr := writeJSON(env.Out, out); werr != nil {
			return werr
		}
		return err
	}
	for i, iss := range found {
		if i > 0 {
			fmt.Fprintln(env.Out)
		}
		writeShowText(env, g, t.store, iss)
	}
	return err
}

func writeShowText(env *Env, g *tasks.Graph, s *tasks.Store, iss *tasks.Issue) {
	w := env.Out
	// Every field comes from issues.jsonl, which a pull may have written:
	// one-line fields go through visibleLine, text through visible.
	fmt.Fprintf(w, "%s: %s\n", visibleLine(iss.ID), visibleLine(iss.Title))
	fmt.Fprintf(w, "Status: %s   Priority: P%d   Type: %s   Assignee: %s\n", visibleLine(iss.Status), iss.Priority, visibleLine(iss.IssueType), visibleLine(dash(iss.Assignee)))
	if len(iss.Labels) > 0 {
		fmt.Fprintf(w, "Labels: %s\n", visibleLine(strings.Join(iss.Labels, ", ")))
	}
	if by := g.BlockedBy(iss); len(by) > 0 {
		fmt.Fprintf(w, "Blocked by: %s\n", visibleLine(strings.Join(by, ", ")))
	}
	for _, sec := range []struct{ name, text string }{
		{"Description", iss.Description}, {"Design", iss.Design}, {"Acceptance criteria", iss.AcceptanceCriteria}, {"Notes", iss.Notes},
	} {
		if sec.text != "" {
			fmt.Fprintf(w, "\n%s:\n%s\n", sec.name, indent(visible(sec.text)))
		}
	}
	if len(iss.Deps) > 0 {
		fmt.Fprintln(w, "\nDepends on:")
		for _, d := range iss.Deps {
			title := "(not found)"
			status := ""
			if t, err := s.Get(d.DependsOnID); err == nil {
				title, status = t.Title, t.Status
			}
			fmt.Fprintf(w, "  %s (%s) %s [%s]\n", visibleLine(d.DependsOnID), visibleLine(d.Type), visibleLine(title), visibleLine(status))
		}
	}
	if deps := g.Dependents(iss.ID); len(deps) > 0 {
		fmt.Fprintln(w, "\nDependents:")
		for _, d := range deps {
			fmt.Fprintf(w, "  %s %s [%s]\n", visibleLine(d.ID), visibleLine(d.Title), visibleLine(d.Status))
		}
	}
	for _, c := range s.Comments(iss) {
		fmt.Fprintf(w, "\nComment by %s at %s:\n%s\n", visibleLine(c.Author), c.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), indent(visible(c.Text)))
	}
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// writeEmpty is an empty result: [] for JSON, nothing for a person.
func writeEmpty(env *Env, asJSON bool) error {
	if asJSON {
		return writeJSON(env.Out, []object{})
	}
	return nil
}
