package cli

import (
	"cmp"
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/runs"
)

type consolidateOptions struct{ dryRun, json bool }

func newConsolidateCmd(env *Env) *cobra.Command {
	var opts consolidateOptions
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Propose pitfalls and playbooks for what recurs across runs",
		Long: `Consolidate reads the run records and files a proposal for each pattern
that recurs in 3 or more runs: the same gotcha (compared in lower case, without
punctuation), the same error signature, the same file failing. Each becomes a
pitfalls fact proposal citing the runs, except an error that a later
successful run on the same files fixed, which becomes a candidate playbook
proposal. Nothing is applied: every proposal waits for memctl review, whatever
[facts.policy] says. A pattern is filed once: a pattern that a proposal
(pending, approved, rejected or withdrawn) carries is listed as skipped. A
pattern whose text the write gate refuses is skipped with a warning.`,
		Example: `  memctl consolidate --dry-run
  memctl consolidate --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runConsolidate(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "list what would be filed, file nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runConsolidate(ctx context.Context, env *Env, opts consolidateOptions) error {
	rs, err := env.openRuns(ctx, !opts.dryRun)
	if err != nil {
		return err
	}
	var res consolidate.Result
	if !rs.off {
		if res, err = consolidate.Run(ctx, env.consolidateRequest(rs, opts.dryRun)); err != nil {
			return proposalError(runError(err))
		}
	}
	for _, p := range res.Problems {
		env.warnf("%v (left out)", p)
	}
	for _, o := range res.Refused {
		env.warnf("%s not filed: %s", o.Pattern, o.Warning)
	}
	if opts.json {
		return writeJSON(env.Out, toConsolidateJSON(res, opts.dryRun))
	}
	verb := "filed"
	if opts.dryRun {
		verb = "would file"
	}
	t := newTable(env, "ACTION", "PROPOSAL", "PATTERN", "RUNS", "SUMMARY")
	for _, o := range res.Filed {
		t.row(verb, cmp.Or(o.Proposal.ID, "-"), o.Pattern, strconv.Itoa(len(o.Runs)), visibleLine(proposalSummary(o.Proposal)))
	}
	for _, o := range res.Skipped {
		if o.Proposal == nil { // a fact, a playbook or another proposal says it
			t.row("skipped (there)", "-", o.Pattern, strconv.Itoa(len(o.Runs)), visibleLine(o.Warning))
			continue
		}
		t.row("skipped ("+o.Proposal.Status+")", o.Proposal.ID, o.Pattern, strconv.Itoa(len(o.Runs)), visibleLine(proposalSummary(o.Proposal)))
	}
	if len(res.Filed)+len(res.Skipped) == 0 {
		if len(res.Refused) == 0 {
			env.notef("nothing recurs in %d or more runs", runs.MinRecurrence)
		}
		return nil
	}
	return t.flush()
}

// consolidateRequest is the request that files proposals for what the
// runs of rs show, as memctl, at the command's time.
func (e *Env) consolidateRequest(rs *runsSession, dryRun bool) consolidate.Request {
	return e.session(rs.ws).ConsolidateRequest(rs.store, dryRun)
}

// afterRecord files what recording r makes worth a proposal
// (app.Session.AfterRecord); the caller holds the workspace lock.
func (e *Env) afterRecord(ctx context.Context, rs *runsSession, r *runs.Record, all bool) {
	e.session(rs.ws).AfterRecord(ctx, &app.RunsSession{WS: rs.ws, Store: rs.store, Off: rs.off}, r, all)
}

type consolidateJSON struct {
	SchemaVersion int                      `json:"schema_version"`
	DryRun        bool                     `json:"dry_run"`
	Filed         []consolidateOutcomeJSON `json:"filed"`
	Skipped       []consolidateOutcomeJSON `json:"skipped"`
	Refused       []consolidateOutcomeJSON `json:"refused"`
}

// consolidateOutcomeJSON is one pattern: the proposal filed for it (in a
// dry run, with no id), the one that had it already, or none and why.
type consolidateOutcomeJSON struct {
	Kind         string   `json:"kind"`
	Pattern      string   `json:"pattern"`
	Runs         []string `json:"runs"`
	ProposalID   string   `json:"proposal_id"`
	ProposalKind string   `json:"proposal_kind"`
	Category     string   `json:"category"`
	Signature    string   `json:"signature"`
	Status       string   `json:"status"`
	Summary      string   `json:"summary"`
	Warning      string   `json:"warning"`
}

func toConsolidateJSON(res consolidate.Result, dryRun bool) consolidateJSON {
	list := func(os []consolidate.Outcome) []consolidateOutcomeJSON {
		out := make([]consolidateOutcomeJSON, 0, len(os))
		for _, o := range os {
			j := consolidateOutcomeJSON{Kind: o.Kind, Pattern: o.Pattern, Runs: o.Runs, Warning: o.Warning}
			if j.Runs == nil {
				j.Runs = []string{}
			}
			if p := o.Proposal; p != nil {
				j.ProposalID, j.ProposalKind, j.Category, j.Signature, j.Status, j.Summary = p.ID, p.Kind, p.Category, p.Signature, p.Status, proposalSummary(p)
			}
			out = append(out, j)
		}
		return out
	}
	return consolidateJSON{SchemaVersion: schemaVersion, DryRun: dryRun, Filed: list(res.Filed), Skipped: list(res.Skipped), Refused: list(res.Refused)}
}
