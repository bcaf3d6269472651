package cli

import (
	"time"

	"github.com/memctl/memctl/internal/runs"
)

// The --json shapes of run record, runs, runs show, digest and gc
// (docs/json.md): the CLI's own types, filled from runs.Record, so that a
// change in the domain cannot change the contract unseen.

// runJSON is one run record, as in its file, and the file.
type runJSON struct {
	RunID        string           `json:"run_id"`
	SessionID    string           `json:"session_id"`
	TaskIDs      []string         `json:"task_ids"`
	Agent        runAgentJSON     `json:"agent"`
	Repo         string           `json:"repo"`
	Branch       string           `json:"branch"`
	CommitSHA    string           `json:"commit_sha"`
	StartedAt    *time.Time       `json:"started_at"`
	EndedAt      *time.Time       `json:"ended_at"`
	Status       string           `json:"status"`
	Digest       runDigestJSON    `json:"digest"`
	FilesChanged []string         `json:"files_changed"`
	Commands     []runCommandJSON `json:"commands"`
	Tests        []runTestJSON    `json:"tests"`
	Errors       []runErrorJSON   `json:"errors"`
	ArtifactRefs []string         `json:"artifact_refs"`
	Path         string           `json:"path"`
}

type runAgentJSON struct {
	Runtime string `json:"runtime"`
	Model   string `json:"model"`
}

type runDigestJSON struct {
	Intent    string   `json:"intent"`
	Result    string   `json:"result"`
	Changes   []string `json:"changes"`
	Decisions []string `json:"decisions"`
	Gotchas   []string `json:"gotchas"`
	NextSteps []string `json:"next_steps"`
	// CompactSummary is the summary of the session's last compaction that
	// flush kept (digest.compact_summary in the file); absent when none,
	// and in runs' list (up to 2,000 characters a run: runs show has it).
	CompactSummary string `json:"compact_summary,omitempty"`
}

type runCommandJSON struct {
	Cmd      string `json:"cmd"`
	ExitCode int    `json:"exit_code"`
}

type runTestJSON struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

type runErrorJSON struct {
	Signature string `json:"signature"`
	Excerpt   string `json:"excerpt"`
	File      string `json:"file"`
	Line      *int   `json:"line"` // null when unknown
}

// runOneJSON is what run record, runs show and digest print.
type runOneJSON struct {
	SchemaVersion int     `json:"schema_version"`
	Run           runJSON `json:"run"`
}

// runListJSON is what runs prints.
type runListJSON struct {
	SchemaVersion int       `json:"schema_version"`
	Runs          []runJSON `json:"runs"`
}

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

func timeJSON(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// listedRunJSON is a run as runs lists it: without the compact summary.
func listedRunJSON(e runs.Entry) runJSON {
	r := toRunJSON(e)
	r.Digest.CompactSummary = ""
	return r
}

func toRunJSON(e runs.Entry) runJSON {
	r := e.Record
	out := runJSON{
		RunID: r.RunID, SessionID: r.SessionID, TaskIDs: strs(r.TaskIDs),
		Agent: runAgentJSON{Runtime: r.Agent.Runtime, Model: r.Agent.Model},
		Repo:  r.Repo, Branch: r.Branch, CommitSHA: r.CommitSHA,
		StartedAt: timeJSON(r.StartedAt), EndedAt: timeJSON(r.EndedAt), Status: r.StatusOrUnknown(),
		Digest: runDigestJSON{Intent: r.Digest.Intent, Result: r.Digest.Result, Changes: strs(r.Digest.Changes),
			Decisions: strs(r.Digest.Decisions), Gotchas: strs(r.Digest.Gotchas), NextSteps: strs(r.Digest.NextSteps),
			CompactSummary: r.CompactSummary()},
		FilesChanged: strs(r.FilesChanged),
		Commands:     make([]runCommandJSON, 0, len(r.Commands)),
		Tests:        make([]runTestJSON, 0, len(r.Tests)),
		Errors:       make([]runErrorJSON, 0, len(r.Errors)),
		ArtifactRefs: strs(r.ArtifactRefs),
		Path:         e.Path,
	}
	for _, c := range r.Commands {
		out.Commands = append(out.Commands, runCommandJSON{Cmd: c.Cmd, ExitCode: c.ExitCode})
	}
	for _, t := range r.Tests {
		out.Tests = append(out.Tests, runTestJSON{Name: t.Name, Status: t.Status})
	}
	for _, x := range r.Errors {
		out.Errors = append(out.Errors, toRunErrorJSON(x))
	}
	return out
}

func toRunErrorJSON(x runs.Error) runErrorJSON {
	e := runErrorJSON{Signature: x.Signature, Excerpt: x.Excerpt, File: x.File}
	if x.Line > 0 {
		e.Line = &x.Line
	}
	return e
}

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
