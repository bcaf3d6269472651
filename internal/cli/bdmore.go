package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

// bd's epic status and delete.

func newEpicCmd(env *Env) *cobra.Command {
	cmd := groupCommand(&cobra.Command{
		Use:     "epic",
		Short:   "Epics' progress (Beads' bd epic)",
		Example: "  memctl epic status --json",
	})
	var eligibleOnly, asJSON bool
	status := &cobra.Command{
		Use:     "status",
		Short:   "Show each open epic's children closed, and which epics can be closed",
		Example: "  memctl epic status --json\n  memctl epic status --eligible-only",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := env.openTasks(cmd.Context(), false)
			if err != nil {
				return err
			}
			var list []tasks.EpicProgress
			for _, p := range tasks.EpicStatus(tasks.NewGraph(t.store), env.Now()) {
				if !eligibleOnly || p.Eligible {
					list = append(list, p)
				}
			}
			if asJSON {
				type epicJSON struct {
					Epic             object `json:"epic"`
					TotalChildren    int    `json:"total_children"`
					ClosedChildren   int    `json:"closed_children"`
					EligibleForClose bool   `json:"eligible_for_close"`
				}
				out := make([]epicJSON, 0, len(list))
				for _, p := range list {
					out = append(out, epicJSON{plainObject(p.Epic), p.Total, p.Closed, p.Eligible})
				}
				return writeJSON(env.Out, out)
			}
			if len(list) == 0 {
				env.notef("no open epics")
				return nil
			}
			for _, p := range list {
				pct := 0
				if p.Total > 0 {
					pct = 100 * p.Closed / p.Total
				}
				fmt.Fprintf(env.Out, "%s %s\n   %d/%d children closed (%d%%)", p.Epic.ID, visibleLine(p.Epic.Title), p.Closed, p.Total, pct)
				if p.Eligible {
					fmt.Fprint(env.Out, "; can be closed")
				}
				fmt.Fprintln(env.Out)
			}
			return nil
		},
	}
	status.Flags().BoolVar(&eligibleOnly, "eligible-only", false, "only epics whose children are all closed")
	status.Flags().BoolVar(&asJSON, "json", false, "print bd's JSON array of {epic, total_children, closed_children, eligible_for_close}")
	cmd.AddCommand(status)
	return cmd
}

type deleteOptions struct {
	force, cascade, dryRun, json bool
	fromFile                     string
}

func newDeleteCmd(env *Env) *cobra.Command {
	var opts deleteOptions
	cmd := &cobra.Command{
		Use:               "delete <id>...",
		ValidArgsFunction: completeIssues(env, anyIssue),
		Short:             "Delete tasks for good and clean up what refers to them (Beads' bd delete); a preview without --force",
		Long: `Delete removes issues from .beads/issues.jsonl, as bd delete does. Without
--force it only previews: the issues, the dependency links that would go and
the connected issues whose text names them. With --force the issues' lines
go, every edge of another issue to them goes (those issues are orphaned, not
deleted), and in the connected issues' description, design, acceptance
criteria and notes each deleted id becomes "[deleted:ID]". --cascade also
deletes, recursively, every issue that depends on one being deleted. git
keeps the history: git log -p .beads/issues.jsonl shows what went.`,
		Example: `  memctl delete app-3f2
  memctl delete app-3f2 --force --json
  memctl delete app-3f2 --cascade --force`,
		RunE: func(cmd *cobra.Command, args []string) error { return runDelete(cmd, env, args, opts) },
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.force, "force", "f", false, "delete (without it, only preview)")
	f.BoolVar(&opts.cascade, "cascade", false, "also delete every issue that depends on them, recursively")
	f.BoolVar(&opts.dryRun, "dry-run", false, "preview only, even with --force")
	f.StringVar(&opts.fromFile, "from-file", "", "read the ids from `file`, one a line")
	f.BoolVar(&opts.json, "json", false, "print what was (or would be) deleted as JSON")
	return cmd
}

func runDelete(cmd *cobra.Command, env *Env, ids []string, opts deleteOptions) error {
	if opts.fromFile != "" {
		data, err := os.ReadFile(opts.fromFile)
		if err != nil {
			return usagef(fmt.Errorf("--from-file: %w", err))
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				ids = append(ids, line)
			}
		}
	}
	if len(ids) == 0 {
		return usagef(errors.New("name the issues to delete: memctl delete <id>... (or --from-file FILE)"))
	}
	apply := opts.force && !opts.dryRun
	t, err := env.openTasks(cmd.Context(), apply)
	if err != nil {
		return err
	}
	plan, err := t.store.PlanDelete(ids, opts.cascade)
	if err != nil {
		return taskError(err)
	}
	if !apply {
		if opts.json {
			return writeJSON(env.Out, deleteJSON(plan, true))
		}
		writeDeletePreview(env, t.store, plan, ids, opts.cascade)
		return nil
	}
	if err := t.store.Delete(plan, env.Now()); err != nil {
		return taskError(err)
	}
	if err := t.save(); err != nil {
		return err
	}
	if opts.json {
		return writeJSON(env.Out, deleteJSON(plan, false))
	}
	env.notef("deleted %d issue(s): %s; removed %d dependency link(s), updated the text of %d issue(s)",
		len(plan.Delete), strings.Join(plan.Delete, ", "), len(plan.Links), len(plan.Referencing))
	return nil
}

// deleteJSON is bd 1.0.5's delete result: for one issue deleted without
// cascade {deleted: id, dependencies_removed, references_updated}, else
// the ids in a list with deleted_count, labels_removed and
// orphaned_issues; a preview adds dry_run.
func deleteJSON(p *tasks.DeletePlan, dryRun bool) app.Object {
	var o app.Object
	if len(p.Delete) == 1 && !dryRun {
		o = o.With("deleted", p.Delete[0])
	} else {
		o = o.With("deleted", p.Delete).With("deleted_count", len(p.Delete))
	}
	o = o.With("dependencies_removed", len(p.Links))
	if dryRun {
		o = o.With("dry_run", true)
	}
	if len(p.Delete) != 1 || dryRun {
		o = o.With("labels_removed", p.Labels).With("orphaned_issues", p.Orphaned)
	}
	return o.With("references_updated", len(p.Referencing)).With("schema_version", bdSchemaVersion)
}

func writeDeletePreview(env *Env, s *tasks.Store, p *tasks.DeletePlan, named []string, cascade bool) {
	title := func(id string) string {
		if iss, err := s.Get(id); err == nil {
			return visibleLine(iss.Title)
		}
		return ""
	}
	fmt.Fprintln(env.Out, "DELETE PREVIEW (nothing is deleted without --force)")
	fmt.Fprintf(env.Out, "\nIssues to delete: %d\n", len(p.Delete))
	for _, id := range p.Delete {
		fmt.Fprintf(env.Out, "  %s: %s\n", id, title(id))
	}
	fmt.Fprintf(env.Out, "\nDependency links to remove: %d\n", len(p.Links))
	for _, l := range p.Links {
		fmt.Fprintf(env.Out, "  %s → %s (%s)\n", l.From, l.To, l.Type)
	}
	if len(p.Referencing) > 0 {
		fmt.Fprintln(env.Out, "\nConnected issues whose text will name [deleted:ID]:")
		for _, id := range p.Referencing {
			fmt.Fprintf(env.Out, "  %s: %s\n", id, title(id))
		}
	}
	flags := " --force"
	if cascade {
		flags = " --cascade --force"
	}
	env.notef("to delete, run: memctl delete %s%s", strings.Join(named, " "), flags)
}
