package cli

import (
	"time"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/runs"
)

// The --json shapes of run record, runs, runs show, digest and gc
// (docs/json.md): the CLI's own types, filled from runs.Record, so that a
// change in the domain cannot change the contract unseen.

// The run shapes are app's (the MCP record_run tool prints them too).
type (
	runJSON      = app.RunJSON
	runErrorJSON = app.RunErrorJSON
	runOneJSON   = app.RunOneJSON
	runListJSON  = app.RunListJSON
)

// gcJSON is what gc prints.
type gcJSON struct {
	SchemaVersion int          `json:"schema_version"`
	DryRun        bool         `json:"dry_run"`
	KeepDays      int          `json:"keep_days"`
	Deleted       []gcRunJSON  `json:"deleted"`
	Kept          []gcKeptJSON `json:"kept"`
}

type gcRunJSON struct {
	RunID  string     `json:"run_id"`
	Path   string     `json:"path"`
	LastAt *time.Time `json:"last_at"`
}

type gcKeptJSON struct {
	RunID   string     `json:"run_id"`
	Path    string     `json:"path"`
	LastAt  *time.Time `json:"last_at"`
	CitedBy []string   `json:"cited_by"`
}

func timeJSON(t time.Time) *time.Time { return app.TimeJSON(t) }

func strs(s []string) []string { return app.Strs(s) }

// listedRunJSON is a run as runs lists it: without the compact summary.
func listedRunJSON(e runs.Entry) runJSON {
	r := toRunJSON(e)
	r.Digest.CompactSummary = ""
	return r
}

func toRunJSON(e runs.Entry) runJSON { return app.ToRunJSON(e) }

func toRunErrorJSON(x runs.Error) runErrorJSON { return app.ToRunErrorJSON(x) }

func toGCJSON(res runs.GCResult, dryRun bool, keepDays int) gcJSON {
	out := gcJSON{SchemaVersion: schemaVersion, DryRun: dryRun, KeepDays: keepDays,
		Deleted: make([]gcRunJSON, 0, len(res.Deleted)), Kept: make([]gcKeptJSON, 0, len(res.Kept))}
	for _, e := range res.Deleted {
		out.Deleted = append(out.Deleted, gcRunJSON{RunID: e.Record.RunID, Path: e.Path, LastAt: timeJSON(e.Record.Time())})
	}
	for _, k := range res.Kept {
		out.Kept = append(out.Kept, gcKeptJSON{RunID: k.Record.RunID, Path: k.Path, LastAt: timeJSON(k.Record.Time()), CitedBy: k.By})
	}
	return out
}
