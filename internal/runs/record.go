package runs

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"github.com/memctl/memctl/internal/ids"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the schema_version of the run record files this memctl
// writes. A file with a higher one was written by a newer memctl and is
// never rewritten.
const SchemaVersion = 1

// Run statuses.
const (
	StatusSuccess = "success"
	StatusFailure = "failure"
	StatusPartial = "partial"
	StatusUnknown = "unknown"
)

// Statuses lists the run statuses, in the order docs and errors name them.
var Statuses = []string{StatusSuccess, StatusFailure, StatusPartial, StatusUnknown}

// Test statuses.
const (
	TestPass = "pass"
	TestFail = "fail"
	TestSkip = "skip"
)

// TestStatuses lists the statuses of a test.
var TestStatuses = []string{TestPass, TestFail, TestSkip}

// SaysSomething reports whether the record tells the next session
// anything: a digest field (intent, result, changes, decisions, gotchas,
// next steps, the compaction's summary flush keeps) or an error. A
// session opened and quit without a word, flushed by its hooks, says
// nothing.
func (r *Record) SaysSomething() bool {
	d := r.Digest
	return strings.TrimSpace(d.Intent) != "" || strings.TrimSpace(d.Result) != "" || len(d.Changes) > 0 ||
		len(d.Decisions) > 0 || len(d.Gotchas) > 0 || len(d.NextSteps) > 0 || len(r.Errors) > 0 ||
		strings.TrimSpace(r.CompactSummary()) != ""
}

// UnknownKeys are the keys of the record's top level that memctl does not
// know, in the order they came: kept as they are, read by nobody.
func (r *Record) UnknownKeys() []string { return r.extra.keys() }

// DigestKeys are the keys of a record's digest.
var DigestKeys = []string{"intent", "result", "changes", "decisions", "gotchas", "next_steps"}

// MaxExcerpt is the longest error excerpt a record keeps, in characters:
// memory holds summaries and references, never raw logs.
const MaxExcerpt = 300

// Record is one agent run. Times are zero and strings empty when unknown;
// Status "" reads as unknown. Keys memctl does not know, in the file or in
// its agent, digest or list elements, are kept and written back after the
// known ones.
type Record struct {
	SchemaVersion int
	RunID         string
	SessionID     string
	// Actor is who ran the session, as memctl names the actor
	// (MEMCTL_ACTOR, else git's user.name): prime's last session is the
	// actor's own.
	Actor        string
	TaskIDs      []string
	Agent        Agent
	Repo         string
	Branch       string
	CommitSHA    string
	StartedAt    time.Time
	EndedAt      time.Time
	Status       string
	Digest       Digest
	FilesChanged []string
	Commands     []Command
	Tests        []Test
	Errors       []Error
	ArtifactRefs []string

	extra fields
}

// Agent is the runtime that ran the session and its model.
type Agent struct {
	Runtime string // claude-code, codex, gemini, …
	Model   string
	extra   fields
}

// Digest is what the next session reads about this one.
type Digest struct {
	Intent    string
	Result    string
	Changes   []string
	Decisions []string
	Gotchas   []string
	NextSteps []string
	extra     fields
}

// Command is a shell command the run ran and how it exited.
type Command struct {
	Cmd      string
	ExitCode int
	extra    fields
}

// Test is a test the run ran and its outcome (TestStatuses).
type Test struct {
	Name   string
	Status string
	extra  fields
}

// Error is an error the run met: its signature (a short hash of the
// normalised text, the same for every occurrence), an excerpt of at most
// MaxExcerpt characters, and where it pointed when known (Line 0: unknown).
type Error struct {
	Signature string
	Excerpt   string
	File      string
	Line      int
	extra     fields
}

// ValidRunID reports whether id can name a run: what ids.Valid accepts,
// 1 to 64 ASCII letters, digits, '.', '_' or '-', starting with a letter
// or digit.
func ValidRunID(id string) bool { return ids.Valid(id) }

// runIDEncoding writes generated run ids: lower-case base32 letters and
// digits, which are valid in run ids and case-insensitive file systems.
var runIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewRunID returns a fresh run id, r- and 10 random base32 characters
// (50 bits), read from rand (crypto/rand when shipped, seeded in tests).
func NewRunID(rand io.Reader) (string, error) {
	var b [7]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("new run id: %w", err)
	}
	return "r-" + runIDEncoding.EncodeToString(b[:])[:10], nil
}

// SessionRunID is the run id of an agent session: r- and the first 10 hex
// digits of SHA-256(runtime NUL session id), so that every flush or digest
// of one session goes to one file.
func SessionRunID(runtime, sessionID string) string {
	sum := sha256.Sum256([]byte(runtime + "\x00" + sessionID))
	return "r-" + hex.EncodeToString(sum[:])[:10]
}

// Cut shortens s to at most n characters, cutting on a character
// boundary (invalid UTF-8 counts a byte as a character).
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for range n {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// HasTask reports whether the run worked on task id.
func (r *Record) HasTask(id string) bool { return slices.Contains(r.TaskIDs, id) }

// HasSignature reports whether one of the run's errors has signature sig.
func (r *Record) HasSignature(sig string) bool {
	return slices.ContainsFunc(r.Errors, func(e Error) bool { return e.Signature == sig })
}

// StatusOrUnknown is the run's status, "unknown" when none was recorded.
func (r *Record) StatusOrUnknown() string {
	if r.Status == "" {
		return StatusUnknown
	}
	return r.Status
}

// Time is when the run last did something: ended_at, else started_at.
func (r *Record) Time() time.Time {
	if !r.EndedAt.IsZero() {
		return r.EndedAt
	}
	return r.StartedAt
}

// validStatus reports whether s is a run status ("" included: unknown).
func validStatus(s string) bool { return s == "" || slices.Contains(Statuses, s) }

// statusList is the statuses for a message: "success, failure, partial or unknown".
func statusList(list []string) string {
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}
