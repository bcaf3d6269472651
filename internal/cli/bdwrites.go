package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

// The write commands bd has beside create and update: defer, undefer, q.

func newDeferCmd(env *Env) *cobra.Command {
	var until string
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "defer <id>...",
		ValidArgsFunction: completeIssues(env, openIssue),
		Short:             "Defer tasks: hide them from ready, until a time with --until (Beads' bd defer)",
		Example: `  memctl defer app-3f2 --until 2w --json
  memctl defer app-3f2 app-9c1`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var when time.Time
			if until != "" {
				w, err := parseWhen("until", until, env.Now(), false)
				if err != nil {
					return err
				}
				when = w
			}
			return runStatusChange(cmd.Context(), env, args, asJSON, func(s *tasks.Store, id string) (*tasks.Issue, error) {
				return s.Defer(id, when, env.Now())
			})
		},
	}
	cmd.Flags().StringVar(&until, "until", "", "show them in ready again from `when` (RFC 3339, YYYY-MM-DD, 3d or 2w)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of the deferred issues (bd's shape)")
	return cmd
}

func newUndeferCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "undefer <id>...",
		ValidArgsFunction: completeIssues(env, anyIssue),
		Short:             "Open deferred tasks again (Beads' bd undefer)",
		Example:           "  memctl undefer app-3f2 --json",
		Args:              cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := env.openTasks(cmd.Context(), true)
			if err != nil {
				return err
			}
			// An issue that is not deferred is said and skipped, as bd does;
			// any other failure fails the command.
			return t.change(env, args, asJSON, func(id string) (*tasks.Issue, error) {
				iss, err := t.store.Undefer(id, env.Now())
				var nd *tasks.NotDeferredError
				if errors.As(err, &nd) {
					env.notef("%s", nd)
					return nil, errSkipped
				}
				return iss, err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of the undeferred issues (bd's shape)")
	return cmd
}

func newQuickCmd(env *Env) *cobra.Command {
	var opts createOptions
	cmd := &cobra.Command{
		Use:     "q <title>",
		Short:   "Quick capture: create a task and print only its id (Beads' bd q)",
		Example: `  id=$(memctl q "Flaky parser test" -t bug -p 1)`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.title, opts.silent = args[0], true
			return runCreate(cmd.Context(), env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.typ, "type", "t", "task", "issue `type`")
	f.StringVarP(&opts.priority, "priority", "p", "2", "priority 0–4 or P0–P4 (0 is critical)")
	f.StringSliceVarP(&opts.labels, "labels", "l", nil, "labels, comma-separated")
	f.Bool("json", false, "accepted for bd's command line; q prints only the id")
	return cmd
}

func newCommentsAddCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "add <id> <text>",
		ValidArgsFunction: completeIssuesUpTo(env, 1),
		Short:             "Add a comment to a task (Beads' bd comments add; the same as memctl comment)",
		Example:           "  memctl comments add app-3f2 \"Repro: run the suite with -count=50\" --json",
		Args:              cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runComment(cmd, env, args[0], args[1], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comment as JSON (bd's shape)")
	return cmd
}

// errSkipped is an id a batch command passed over on purpose, after
// saying why: not a failure, and not in the output.
var errSkipped = errors.New("skipped")
