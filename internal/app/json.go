package app

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks"
)

// The JSON shapes that more than one front-end prints (docs/json.md): bd's
// issue objects, recall's results and run records. memctl recall --json and
// the MCP recall tool print the same bytes for the same answer, and a
// change here shows in both front-ends' golden files.

// SchemaVersion is the schema_version of every memctl JSON object (the
// task-graph commands print bd's shapes, which have none). A rename,
// removal or change of meaning in any shape bumps it, with a CHANGELOG
// entry; adding a field does not.
const SchemaVersion = 1

// RecallSchemaVersion is the schema_version of recall's object (recall
// --json, the MCP recall tool): 2 since scores are fused by score (fused
// in [0, 1.05], bm25 0 for a document no word matched, dense computed for
// every hybrid candidate).
const RecallSchemaVersion = 2

// Object is a JSON object with a fixed field order: bd's shapes are
// built from an issue's stored fields, in the order bd writes them.
type Object []Member

// Member is one key of an Object and its encoded value.
type Member struct {
	Key string
	Raw json.RawMessage
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// AppendJSON appends o's JSON to b. Each member's value is its raw JSON,
// as read (it may hold insignificant white space).
func (o Object) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendKey(b, m.Key), m.Raw...)
	}
	return append(b, '}')
}

// AppendKey appends key as a JSON object key, with its colon.
func AppendKey(b []byte, key string) []byte {
	if plainKey(key) {
		return append(appendQuoted(b, key), ':')
	}
	k, _ := json.Marshal(key)
	return append(append(b, k...), ':')
}

// appendQuoted appends s in quotes: JSON for a string plainKey accepts.
func appendQuoted(b []byte, s string) []byte { return append(append(append(b, '"'), s...), '"') }

// plainKey reports whether key needs no escaping in JSON.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// With is o with key set to v's JSON appended.
func (o Object) With(key string, v any) Object {
	return append(o, Member{key, appendValue(nil, v)})
}

// appendValue appends v's JSON as json.Marshal writes it. The values
// issue lists add to every issue (counts, ids, booleans) are written
// directly; the rest go through json.Marshal.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		if plainKey(x) {
			return appendQuoted(b, x)
		}
	case []string:
		if x == nil {
			return append(b, "null"...)
		}
		if !slices.ContainsFunc(x, func(s string) bool { return !plainKey(s) }) {
			b = append(b, '[')
			for i, s := range x {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendQuoted(b, s)
			}
			return append(b, ']')
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// derivedKeys are bd export artifacts that memctl recomputes.
var derivedKeys = []string{"_type", "dependency_count", "dependent_count", "comment_count"}

// IssueObject is the issue's stored fields in bd's order, without the
// given keys and without derived counts.
func IssueObject(iss *tasks.Issue, without ...string) Object {
	return AppendIssueObject(make(Object, 0, 32), iss, without...) // a bd issue has about 20 fields; room for what callers add
}

// AppendIssueObject is IssueObject appended to o: a list printed one
// issue at a time reuses one Object.
func AppendIssueObject(o Object, iss *tasks.Issue, without ...string) Object {
	iss.Record().Fields(func(key string, raw []byte) {
		if !slices.Contains(derivedKeys, key) && !slices.Contains(without, key) {
			o = append(o, Member{key, raw})
		}
	})
	return o
}

// ListObject is bd's IssueWithCounts, as ready and list print it.
func ListObject(g *tasks.Graph, iss *tasks.Issue) Object {
	return AppendListObject(make(Object, 0, 32), g, iss) // as IssueObject: room for the fields and the counts
}

// AppendListObject is ListObject appended to o.
func AppendListObject(o Object, g *tasks.Graph, iss *tasks.Issue) Object {
	o = AppendIssueObject(o, iss, "comments")
	if p := g.Parent(iss); p != nil {
		o = o.With("parent", p.ID)
	}
	out, in := g.BlocksCounts(iss)
	return o.With("dependency_count", out).With("dependent_count", in).With("comment_count", iss.Comments)
}

// PlainObject is bd's Issue as update, close, reopen, defer, blocked and
// dep list print it: bd 1.0.5 reads the issue without its edges and
// comments there (compared with the real bd by the harness,
// cmd/memctl/bdcompat_test.go).
func PlainObject(iss *tasks.Issue) Object { return AppendPlainObject(make(Object, 0, 32), iss) }

// AppendPlainObject is PlainObject appended to o.
func AppendPlainObject(o Object, iss *tasks.Issue) Object {
	return AppendIssueObject(o, iss, "dependencies", "comments")
}

// ShowOptions are show's --include-* flags.
type ShowOptions struct {
	// Dependents adds the issues with an edge to this one, each with the
	// edge's type (bd 1.0.5's --include-dependents).
	Dependents bool
	// Comments adds the comments (--include-comments).
	Comments bool
}

// ShowObjectWith is bd's IssueDetails with the parts opts asks for.
func ShowObjectWith(g *tasks.Graph, iss *tasks.Issue, s *tasks.Store, opts ShowOptions) Object {
	o := IssueObject(iss, "dependencies", "comments")
	if len(iss.Deps) > 0 {
		deps := make([]Object, 0, len(iss.Deps))
		for _, d := range iss.Deps {
			t, err := s.Get(d.DependsOnID)
			if err != nil {
				deps = append(deps, Object{}.With("id", d.DependsOnID).With("dependency_type", d.Type))
				continue
			}
			deps = append(deps, IssueObject(t, "dependencies", "comments").With("dependency_type", d.Type))
		}
		o = o.With("dependencies", deps)
	}
	if opts.Dependents {
		deps := []Object{}
		for _, d := range g.Dependents(iss.ID) {
			for _, e := range d.Deps {
				if e.DependsOnID == iss.ID {
					deps = append(deps, Object{}.With("id", d.ID).With("title", d.Title).With("status", d.Status).
						With("priority", d.Priority).With("issue_type", d.IssueType).
						With("created_at", d.CreatedAt.UTC().Format(time.RFC3339)).With("updated_at", d.UpdatedAt.UTC().Format(time.RFC3339)).
						With("dependency_type", e.Type))
				}
			}
		}
		if len(deps) > 0 { // bd leaves out an empty list
			o = o.With("dependents", deps)
		}
	}
	if opts.Comments && iss.Comments > 0 {
		cs := []CommentJSON{}
		for _, c := range s.Comments(iss) {
			cs = append(cs, ToCommentJSON(c))
		}
		o = o.With("comments", cs)
	}
	if p := g.Parent(iss); p != nil {
		o = o.With("parent", p.ID)
	}
	out, in := g.AllCounts(iss)
	return o.With("dependent_count", in).With("dependency_count", out).With("comment_count", iss.Comments)
}

// CreateObject is bd's create output: the issue's fields sorted by key,
// with schema_version, without the edges (bd 1.0.5 prints the issue as
// built, before --parent and --deps add them).
func CreateObject(iss *tasks.Issue) Object {
	o := IssueObject(iss, "dependencies", "comments").With("schema_version", SchemaVersion)
	slices.SortFunc(o, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	return o
}

// RecallJSON is what recall prints: memctl recall --json and the MCP
// recall tool.
type RecallJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Query         string             `json:"query"`
	Mode          string             `json:"mode"`
	Results       []RecallResultJSON `json:"results"`
	// Signature is the error text's, with --error only.
	Signature *RecallSignatureJSON `json:"signature,omitempty"`
	TookMS    float64              `json:"took_ms"`
}

// RecallResultJSON is one recall result.
type RecallResultJSON struct {
	Kind string `json:"kind"`
	// Status is the document's: a task's, a proposal's (pending: not a
	// fact yet), a run's outcome, "approved" for facts and playbooks;
	// absent for personal preferences.
	Status    string           `json:"status,omitempty"`
	ID        string           `json:"id"`
	Title     string           `json:"title"`
	Snippet   string           `json:"snippet"`
	Score     float64          `json:"score"`
	Scores    RecallScoresJSON `json:"scores"`
	Source    RecallSourceJSON `json:"source"`
	CreatedAt *time.Time       `json:"created_at"`
	// Match is how recall --error found it: "signature" (the same
	// error) or "similar"; absent in an ordinary recall.
	Match string `json:"match,omitempty"`
	// Explain, with recall --explain only, says how the score came
	// about.
	Explain *RecallExplainJSON `json:"explain,omitempty"`
}

// RecallExplainJSON is how a result's score came about: score =
// relevance × approved × age, relevance = Σ weight × norm over the
// signals (null: the search did not use that signal).
type RecallExplainJSON struct {
	BM25      *RecallSignalJSON `json:"bm25"`
	Dense     *RecallSignalJSON `json:"dense"`
	Match     *RecallSignalJSON `json:"match"`
	Relevance float64           `json:"relevance"`
	Approved  float64           `json:"approved"`
	Age       float64           `json:"age"`
	Score     float64           `json:"score"`
}

// RecallSignalJSON is one signal's view of a result: its own score, that
// score scaled over the candidates as it was fused, the result's rank in
// the signal's own ranking (null when that ranking did not list it) and
// the signal's weight.
type RecallSignalJSON struct {
	Raw    float64 `json:"raw"`
	Norm   float64 `json:"norm"`
	Rank   *int    `json:"rank"`
	Weight float64 `json:"weight"`
}

// RecallSignatureJSON is the signature recall --error searched by.
type RecallSignatureJSON struct {
	Hash       string `json:"hash"`
	Normalized string `json:"normalized"`
}

// RecallScoresJSON is a result's scores: each ranking's, null when it
// did not rank the result, and the fused one.
type RecallScoresJSON struct {
	BM25  *float64 `json:"bm25"`
	Dense *float64 `json:"dense"`
	Match *float64 `json:"match"`
	Fused float64  `json:"fused"`
}

// RecallSourceJSON is where a result comes from.
type RecallSourceJSON struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Commit string `json:"commit"`
}

// RecallResultsJSON is rs in the JSON shape, with each result's explain
// object when explain is set; never nil.
func RecallResultsJSON(rs []recall.Result, explain bool) []RecallResultJSON {
	out := make([]RecallResultJSON, len(rs))
	for i, r := range rs {
		out[i] = RecallResultJSON{
			Kind: r.Kind, Status: r.Status, ID: r.ID, Title: r.Title, Snippet: r.Snippet, Score: r.Score,
			Scores:    RecallScoresJSON{BM25: r.Scores.BM25, Dense: r.Scores.Dense, Match: r.Scores.Match, Fused: r.Scores.Fused},
			Source:    RecallSourceJSON{Path: r.Source.Path, Line: r.Source.Line, Commit: r.Source.Commit},
			CreatedAt: r.CreatedAt, Match: r.Match,
		}
		if explain {
			e := r.Scores.Explain
			out[i].Explain = &RecallExplainJSON{BM25: signalJSON(e.BM25), Dense: signalJSON(e.Dense), Match: signalJSON(e.Match),
				Relevance: e.Relevance, Approved: e.Approved, Age: e.Age, Score: r.Score}
		}
	}
	return out
}

func signalJSON(s *recall.Signal) *RecallSignalJSON {
	if s == nil {
		return nil
	}
	out := &RecallSignalJSON{Raw: s.Raw, Norm: s.Norm, Weight: s.Weight}
	if s.Rank > 0 {
		r := s.Rank
		out.Rank = &r
	}
	return out
}

// RunJSON is one run record, as in its file, and the file.
type RunJSON struct {
	RunID        string           `json:"run_id"`
	SessionID    string           `json:"session_id"`
	Actor        string           `json:"actor"`
	TaskIDs      []string         `json:"task_ids"`
	Agent        RunAgentJSON     `json:"agent"`
	Repo         string           `json:"repo"`
	Branch       string           `json:"branch"`
	CommitSHA    string           `json:"commit_sha"`
	StartedAt    *time.Time       `json:"started_at"`
	EndedAt      *time.Time       `json:"ended_at"`
	Status       string           `json:"status"`
	Digest       RunDigestJSON    `json:"digest"`
	FilesChanged []string         `json:"files_changed"`
	Commands     []RunCommandJSON `json:"commands"`
	Tests        []RunTestJSON    `json:"tests"`
	Errors       []RunErrorJSON   `json:"errors"`
	ArtifactRefs []string         `json:"artifact_refs"`
	Path         string           `json:"path"`
}

// RunAgentJSON is the agent that ran: runtime and model.
type RunAgentJSON struct {
	Runtime string `json:"runtime"`
	Model   string `json:"model"`
}

// RunDigestJSON is a run's digest.
type RunDigestJSON struct {
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

// RunCommandJSON is a command a run ran and its exit code.
type RunCommandJSON struct {
	Cmd      string `json:"cmd"`
	ExitCode int    `json:"exit_code"`
}

// RunTestJSON is a test a run ran and its status.
type RunTestJSON struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// RunErrorJSON is an error a run met.
type RunErrorJSON struct {
	Signature string `json:"signature"`
	Excerpt   string `json:"excerpt"`
	File      string `json:"file"`
	Line      *int   `json:"line"` // null when unknown
}

// RunOneJSON is what run record, runs show and digest print.
type RunOneJSON struct {
	SchemaVersion int     `json:"schema_version"`
	Run           RunJSON `json:"run"`
}

// RunListJSON is what runs prints.
type RunListJSON struct {
	SchemaVersion int       `json:"schema_version"`
	Runs          []RunJSON `json:"runs"`
}

// TimeJSON is t in UTC, or nil (null) when zero.
func TimeJSON(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// Strs is s, or [] for nil: empty lists are [], never null.
func Strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ToRunJSON is a run record and its file in the JSON shape.
func ToRunJSON(e runs.Entry) RunJSON {
	r := e.Record
	out := RunJSON{
		RunID: r.RunID, SessionID: r.SessionID, Actor: r.Actor, TaskIDs: Strs(r.TaskIDs),
		Agent: RunAgentJSON{Runtime: r.Agent.Runtime, Model: r.Agent.Model},
		Repo:  r.Repo, Branch: r.Branch, CommitSHA: r.CommitSHA,
		StartedAt: TimeJSON(r.StartedAt), EndedAt: TimeJSON(r.EndedAt), Status: r.StatusOrUnknown(),
		Digest: RunDigestJSON{Intent: r.Digest.Intent, Result: r.Digest.Result, Changes: Strs(r.Digest.Changes),
			Decisions: Strs(r.Digest.Decisions), Gotchas: Strs(r.Digest.Gotchas), NextSteps: Strs(r.Digest.NextSteps),
			CompactSummary: r.CompactSummary()},
		FilesChanged: Strs(r.FilesChanged),
		Commands:     make([]RunCommandJSON, 0, len(r.Commands)),
		Tests:        make([]RunTestJSON, 0, len(r.Tests)),
		Errors:       make([]RunErrorJSON, 0, len(r.Errors)),
		ArtifactRefs: Strs(r.ArtifactRefs),
		Path:         e.Path,
	}
	for _, c := range r.Commands {
		out.Commands = append(out.Commands, RunCommandJSON{Cmd: c.Cmd, ExitCode: c.ExitCode})
	}
	for _, t := range r.Tests {
		out.Tests = append(out.Tests, RunTestJSON{Name: t.Name, Status: t.Status})
	}
	for _, x := range r.Errors {
		out.Errors = append(out.Errors, ToRunErrorJSON(x))
	}
	return out
}

// ToRunErrorJSON is one error of a run in the JSON shape.
func ToRunErrorJSON(x runs.Error) RunErrorJSON {
	e := RunErrorJSON{Signature: x.Signature, Excerpt: x.Excerpt, File: x.File}
	if x.Line > 0 {
		e.Line = &x.Line
	}
	return e
}

// CommentJSON is a comment on a task, as memctl comment --json and the MCP
// task tool's comment print it.
type CommentJSON struct {
	ID        string `json:"id"`
	IssueID   string `json:"issue_id"`
	Author    string `json:"author"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
}

// ToCommentJSON is c in the JSON shape.
func ToCommentJSON(c tasks.Comment) CommentJSON {
	return CommentJSON{ID: c.ID, IssueID: c.IssueID, Author: c.Author, Text: c.Text, CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339)}
}
