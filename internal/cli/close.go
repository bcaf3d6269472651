package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type closeOptions struct {
	reason string
	json   bool
}

func newCloseCmd(env *Env) *cobra.Command {
	var opts closeOptions
	cmd := &cobra.Command{
		Use:     "close <id>...",
		Short:   "Close tasks (Beads' bd close)",
		Example: "  memctl close app-3f2 --reason \"Fixed in 4c1e2a\" --json\n  memctl close app-3f2 app-9c1",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatusChange(cmd.Context(), env, args, opts.json, func(s *tasks.Store, id string) (*tasks.Issue, error) {
				return s.Close(id, opts.reason, env.Now())
			})
		},
	}
	cmd.Flags().StringVarP(&opts.reason, "reason", "r", "", "why it is closed")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print a JSON array of the closed issues (bd's shape)")
	return cmd
}

func newReopenCmd(env *Env) *cobra.Command {
	var opts closeOptions
	cmd := &cobra.Command{
		Use:     "reopen <id>...",
		Short:   "Reopen closed tasks (Beads' bd reopen)",
		Example: "  memctl reopen app-3f2 --json",
		Args:    cobra.MinimumNArgs(1),
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
