package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

// statsJSON is the --json shape of stats (bd's Statistics fields).
type statsJSON struct {
	SchemaVersion    int `json:"schema_version"`
	TotalIssues      int `json:"total_issues"`
	OpenIssues       int `json:"open_issues"`
	InProgressIssues int `json:"in_progress_issues"`
	ClosedIssues     int `json:"closed_issues"`
	BlockedIssues    int `json:"blocked_issues"`
	DeferredIssues   int `json:"deferred_issues"`
	ReadyIssues      int `json:"ready_issues"`
	PinnedIssues     int `json:"pinned_issues"`
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runStats(ctx context.Context, env *Env, asJSON bool) error {
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	c := tasks.Count(t.store, env.Now())
	s := statsJSON{SchemaVersion: schemaVersion, TotalIssues: c.Total, OpenIssues: c.Open, InProgressIssues: c.InProgress,
		ClosedIssues: c.Closed, BlockedIssues: c.Blocked, DeferredIssues: c.Deferred, ReadyIssues: c.Ready, PinnedIssues: c.Pinned}
	if asJSON {
		return writeJSON(env.Out, s)
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
