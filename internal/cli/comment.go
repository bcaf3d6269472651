package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

// commentJSON is a comment's JSON shape (app's: the MCP task tool prints
// it too).
type commentJSON = app.CommentJSON

func toCommentJSON(c tasks.Comment) commentJSON { return app.ToCommentJSON(c) }

func newCommentCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "comment <id> <text>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "Add a comment to a task (Beads' bd comment)",
		Example:           "  memctl comment app-3f2 \"Repro: run the suite with -count=50\" --json",
		Args:              cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runComment(cmd, env, args[0], args[1], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comment as JSON (bd's shape)")
	return cmd
}

// runComment adds a comment (comment, comments add) and prints it as bd
// does: with --json the comment's keys sorted and bd's schema_version.
func runComment(cmd *cobra.Command, env *Env, id, text string, asJSON bool) error {
	t, err := env.openTasks(cmd.Context(), true)
	if err != nil {
		return err
	}
	c, err := t.store.AddComment(id, env.actor(t.ws).Name, text, env.Rand, env.Now())
	if err != nil {
		return taskError(err)
	}
	if err := t.save(); err != nil {
		return err
	}
	if asJSON {
		j := toCommentJSON(c)
		return writeJSON(env.Out, struct {
			Author        string `json:"author"`
			CreatedAt     string `json:"created_at"`
			ID            string `json:"id"`
			IssueID       string `json:"issue_id"`
			SchemaVersion int    `json:"schema_version"`
			Text          string `json:"text"`
		}{j.Author, j.CreatedAt, j.ID, j.IssueID, bdSchemaVersion, j.Text})
	}
	env.notef("comment added to %s", id)
	return nil
}

func newCommentsCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "comments <id> | comments add <id> <text>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "List the comments on a task, or add one (Beads' bd comments)",
		Example:           "  memctl comments app-3f2 --json\n  memctl comments add app-3f2 \"seen on CI too\"",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runComments(cmd.Context(), env, args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of comments")
	cmd.AddCommand(newCommentsAddCmd(env))
	return cmd
}

func runComments(ctx context.Context, env *Env, id string, asJSON bool) error {
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	iss, err := t.store.Get(id)
	if err != nil {
		return taskError(err)
	}
	cs := t.store.Comments(iss)
	if asJSON {
		out := make([]commentJSON, 0, len(cs))
		for _, c := range cs {
			out = append(out, toCommentJSON(c))
		}
		return writeJSON(env.Out, out)
	}
	if len(cs) == 0 {
		env.notef("no comments on %s", id)
	}
	for _, c := range cs {
		fmt.Fprintf(env.Out, "%s  %s\n%s\n\n", c.CreatedAt.UTC().Format(time.RFC3339), visibleLine(c.Author), indent(visible(c.Text)))
	}
	return nil
}

func newLabelCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "label",
		Short:   "Add, remove or list the labels of tasks (Beads' bd label)",
		Example: "  memctl label add app-3f2 urgent\n  memctl label list app-3f2 --json",
	}
	var asJSON bool
	change := func(use, short string, add bool) *cobra.Command {
		status := map[bool]string{true: "added", false: "removed"}[add]
		c := &cobra.Command{
			Use: use + " <id> <label>... | " + use + " <id>... <label>",
			// The first argument is an id; the rest may be ids or labels.
			ValidArgsFunction: completeIssuesUpTo(env, 1),
			Short:             short,
			Long: short + `. Either one task and its labels (memctl label ` + use + ` app-3f2 backend api)
or, as bd 1.0.5 takes it, several tasks and one label (memctl label ` + use + `
app-3f2 app-9c1 urgent): when every argument but the last names a task, the
last is the label.`,
			Example: "  memctl label " + use + " app-3f2 backend api --json\n  memctl label " + use + " app-3f2 app-9c1 urgent",
			Args:    cobra.MinimumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := env.openTasks(cmd.Context(), true)
				if err != nil {
					return err
				}
				ids, labels := args[:1], args[1:]
				if len(args) > 2 && !slices.ContainsFunc(args[:len(args)-1], func(id string) bool {
					_, err := t.store.Get(id)
					return err != nil
				}) {
					ids, labels = args[:len(args)-1], args[len(args)-1:]
				}
				var ch tasks.Changes
				if add {
					ch.AddLabels = labels
				} else {
					ch.RemoveLabels = labels
				}
				var changed []*tasks.Issue
				for _, id := range ids {
					iss, err := t.store.Update(id, ch, env.Now())
					if err != nil {
						return taskError(err)
					}
					changed = append(changed, iss)
				}
				if err := t.save(); err != nil {
					return err
				}
				if asJSON {
					out := []labelChange{}
					for _, iss := range changed {
						out = append(out, labelChangeJSON(iss.ID, labels, status)...)
					}
					return writeJSON(env.Out, out)
				}
				for _, iss := range changed {
					if len(changed) > 1 {
						fmt.Fprintf(env.Out, "%s:\n", iss.ID)
					}
					if err := writeLabels(env, iss, false); err != nil {
						return err
					}
				}
				return nil
			},
		}
		c.Flags().BoolVar(&asJSON, "json", false, "print bd's result: an array of {issue_id, label, status}")
		return c
	}
	list := &cobra.Command{
		Use:               "list <id>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "List the labels of a task",
		Example:           "  memctl label list app-3f2 --json",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := env.openTasks(cmd.Context(), false)
			if err != nil {
				return err
			}
			iss, err := t.store.Get(args[0])
			if err != nil {
				return taskError(err)
			}
			return writeLabels(env, iss, asJSON)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the labels as a JSON array")
	cmd.AddCommand(change("add", "Add labels to a task", true), change("remove", "Remove labels from a task", false), list)
	return groupCommand(cmd)
}

// labelChange is one element of bd's --json result of label add and
// label remove: status is "added" or "removed".
type labelChange struct {
	IssueID string `json:"issue_id"`
	Label   string `json:"label"`
	Status  string `json:"status"`
}

// labelChangeJSON is bd's result of label add/remove: one element per
// label named, in the order given, whether or not the task had it;
// labels as stored (trimmed, blank and repeated ones dropped).
func labelChangeJSON(id string, labels []string, status string) []labelChange {
	out := make([]labelChange, 0, len(labels))
	seen := map[string]bool{}
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			out = append(out, labelChange{IssueID: id, Label: l, Status: status})
		}
	}
	return out
}

func writeLabels(env *Env, iss *tasks.Issue, asJSON bool) error {
	if asJSON {
		return writeJSON(env.Out, nonNil(iss.Labels))
	}
	for _, l := range iss.Labels {
		fmt.Fprintln(env.Out, visibleLine(l))
	}
	return nil
}
