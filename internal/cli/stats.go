package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

// bdSchemaVersion is the schema_version bd (1.0.5) prints in the --json
// of stats and dep add/remove. Those shapes follow bd, not memctl's own
// schema_version.
const bdSchemaVersion = 1

// statsJSON is the --json shape of stats: bd's, the counts under
// summary, keys in bd's order.
type statsJSON struct {
	SchemaVersion int          `json:"schema_version"`
	Summary       statsSummary `json:"summary"`
}

type statsSummary struct {
	AverageLeadTimeHours    float64 `json:"average_lead_time_hours"`
	BlockedIssues           int     `json:"blocked_issues"`
	ClosedIssues            int     `json:"closed_issues"`
	DeferredIssues          int     `json:"deferred_issues"`
	EpicsEligibleForClosure int     `json:"epics_eligible_for_closure"`
	InProgressIssues        int     `json:"in_progress_issues"`
	OpenIssues              int     `json:"open_issues"`
	PinnedIssues            int     `json:"pinned_issues"`
	ReadyIssues             int     `json:"ready_issues"`
	TotalIssues             int     `json:"total_issues"`
}

func newStatsCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "stats",
		Short:   "Count tasks by state (Beads' bd stats)",
		Example: "  memctl stats --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runStats(cmd.Context(), env, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print bd's JSON: the counts under summary")
	return cmd
}

func runStats(ctx context.Context, env *Env, asJSON bool) error {
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	c := tasks.Count(t.store, env.Now())
	s := statsSummary{TotalIssues: c.Total, OpenIssues: c.Open, InProgressIssues: c.InProgress,
		ClosedIssues: c.Closed, BlockedIssues: c.Blocked, DeferredIssues: c.Deferred, ReadyIssues: c.Ready, PinnedIssues: c.Pinned,
		EpicsEligibleForClosure: c.EpicsEligibleForClosure, AverageLeadTimeHours: c.AverageLeadTimeHours}
	if asJSON {
		return writeJSON(env.Out, statsJSON{SchemaVersion: bdSchemaVersion, Summary: s})
	}
	tb := newTable(env, "STATE", "ISSUES")
	for _, r := range []struct {
		k string
		v int
	}{{"total", s.TotalIssues}, {"open", s.OpenIssues}, {"in_progress", s.InProgressIssues}, {"closed", s.ClosedIssues},
		{"blocked", s.BlockedIssues}, {"ready", s.ReadyIssues}, {"deferred", s.DeferredIssues}, {"pinned", s.PinnedIssues}} {
		tb.row(r.k, fmt.Sprint(r.v))
	}
	return tb.flush()
}
