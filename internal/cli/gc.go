package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

type gcOptions struct{ dryRun, json bool }

func newGCCmd(env *Env) *cobra.Command {
	var opts gcOptions
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Delete run records older than [runs] keep_days that nothing cites",
		Long: `Gc deletes the run records whose last time (ended_at, else started_at) is
more than [runs] keep_days (default 180) days ago, unless a fact
(.ledger/facts/*.md), a proposal (.ledger/proposals/*.json) or a playbook
(.ledger/playbooks/*.md) names the run id; those are kept and listed with
what cites them. keep_days = 0 keeps every run. A record that cannot be read
is never deleted. Commit the deletions like any other change.`,
		Example: `  memctl gc --dry-run
  memctl gc --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGC(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "list what would be deleted, delete nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runGC(ctx context.Context, env *Env, opts gcOptions) error {
	rs, err := env.openRuns(ctx, !opts.dryRun)
	if err != nil {
		return err
	}
	keep := rs.ws.Config.Runs.KeepDays
	var res runs.GCResult
	if !rs.off {
		ws := rs.ws
		res, err = rs.store.GC(runs.GCOptions{Now: env.Now(), KeepDays: keep, DryRun: opts.dryRun, Citing: []runs.Citing{
			{Dir: ws.Path(config.FactsDir), Rel: config.FactsDir, Ext: ".md"},
			{Dir: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir, Ext: ".json"},
			{Dir: ws.Path(config.PlaybooksDir), Rel: config.PlaybooksDir, Ext: ".md"},
		}})
		if err != nil {
			return err
		}
	}
	for _, p := range res.Problems {
		env.warnf("%v (kept: gc never deletes a file it cannot read)", p)
	}
	if opts.json {
		return writeJSON(env.Out, toGCJSON(res, opts.dryRun, keep))
	}
	verb := "deleted"
	if opts.dryRun {
		verb = "would delete"
	}
	t := newTable(env, "ACTION", "RUN", "LAST", "FILE")
	for _, e := range res.Deleted {
		t.row(verb, e.Record.RunID, formatTime(e.Record.Time()), e.Path)
	}
	for _, k := range res.Kept {
		t.row("kept", k.Record.RunID, formatTime(k.Record.Time()), "cited by "+strings.Join(k.By, ", "))
	}
	if len(res.Deleted)+len(res.Kept) == 0 {
		if keep == 0 {
			env.notef("nothing to delete: [runs] keep_days = 0 keeps every run")
		} else {
			env.notef("nothing to delete: no run is older than %d days", keep)
		}
		return nil
	}
	return t.flush()
}
