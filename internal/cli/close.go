package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

type closeOptions struct {
	reason      string
	suggestNext bool
	json        bool
}

func newCloseCmd(env *Env) *cobra.Command {
	var opts closeOptions
	cmd := &cobra.Command{
		Use:               "close <id>...",
		ValidArgsFunction: completeIssues(env, openIssue),
		Short:             "Close tasks (Beads' bd close)",
		Example:           "  memctl close app-3f2 --reason \"Fixed in 4c1e2a\" --json\n  memctl close app-3f2 app-9c1",
		Args:              cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.suggestNext {
				return runCloseSuggest(cmd.Context(), env, args, opts)
			}
			return runStatusChange(cmd.Context(), env, args, opts.json, func(s *tasks.Store, id string) (*tasks.Issue, error) {
				return s.Close(id, opts.reason, env.Now())
			})
		},
	}
	cmd.Flags().StringVarP(&opts.reason, "reason", "r", "", "why it is closed (default: Closed)")
	cmd.Flags().BoolVar(&opts.suggestNext, "suggest-next", false, "also list the issues the close made ready")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of the closed issues (bd's shape)")
	return cmd
}

func newReopenCmd(env *Env) *cobra.Command {
	var opts closeOptions
	cmd := &cobra.Command{
		Use:               "reopen <id>...",
		ValidArgsFunction: completeIssues(env, closedIssue),
		Short:             "Reopen closed tasks (Beads' bd reopen)",
		Example:           "  memctl reopen app-3f2 --json",
		Args:              cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatusChange(cmd.Context(), env, args, opts.json, func(s *tasks.Store, id string) (*tasks.Issue, error) {
				return s.Reopen(id, env.Now())
			})
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of the reopened issues (bd's shape)")
	return cmd
}

func runStatusChange(ctx context.Context, env *Env, ids []string, asJSON bool, fn func(*tasks.Store, string) (*tasks.Issue, error)) error {
	t, err := env.openTasks(ctx, true)
	if err != nil {
		return err
	}
	return t.change(env, ids, asJSON, func(id string) (*tasks.Issue, error) { return fn(t.store, id) })
}

// runCloseSuggest closes the ids and says which issues the close made
// ready (bd close --suggest-next): with --json bd's object {closed,
// schema_version, unblocked}, each issue's keys sorted as bd prints them.
func runCloseSuggest(ctx context.Context, env *Env, ids []string, opts closeOptions) error {
	t, err := env.openTasks(ctx, true)
	if err != nil {
		return err
	}
	before, _ := tasks.NewGraph(t.store).Ready(tasks.ReadyFilter{Sort: tasks.SortPriority}, env.Now())
	wasReady := map[string]bool{}
	for _, iss := range before {
		wasReady[iss.ID] = true
	}
	var closed []*tasks.Issue
	berr := batch(ids, func(id string) error {
		iss, err := t.store.Close(id, opts.reason, env.Now())
		if err == nil {
			closed = append(closed, iss)
		}
		return err
	})
	if len(closed) == 0 {
		return berr
	}
	if err := t.save(); err != nil {
		return err
	}
	after, _ := tasks.NewGraph(t.store).Ready(tasks.ReadyFilter{Sort: tasks.SortPriority}, env.Now())
	var unblocked []*tasks.Issue
	for _, iss := range after {
		if !wasReady[iss.ID] {
			unblocked = append(unblocked, iss)
		}
	}
	if opts.json {
		sorted := func(list []*tasks.Issue) []object {
			out := make([]object, 0, len(list))
			for _, iss := range list {
				o := app.PlainObject(iss)
				slices.SortFunc(o, func(a, b app.Member) int { return strings.Compare(a.Key, b.Key) })
				out = append(out, object(o))
			}
			return out
		}
		if err := writeJSON(env.Out, struct {
			Closed        []object `json:"closed"`
			SchemaVersion int      `json:"schema_version"`
			Unblocked     []object `json:"unblocked"`
		}{sorted(closed), bdSchemaVersion, sorted(unblocked)}); err != nil {
			return err
		}
		return berr
	}
	if err := writeIssueTable(env, closed); err != nil {
		return err
	}
	if len(unblocked) == 0 {
		env.notef("no issue became ready")
		return berr
	}
	fmt.Fprintln(env.Out, "\nNow ready:")
	if err := writeIssueTable(env, unblocked); err != nil {
		return err
	}
	return berr
}
