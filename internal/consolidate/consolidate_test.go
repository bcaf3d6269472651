package consolidate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

var now = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

type workspace struct {
	t     *testing.T
	store runs.Store
	book  *proposal.Book
}

// newWorkspace has a pitfalls file whose policy applies agents' adds at
// once, which consolidation must not let happen.
func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	root := t.TempDir()
	facts := filepath.Join(root, "facts")
	if err := os.MkdirAll(facts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(facts, "pitfalls.md"), []byte("# Pitfalls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default("x").Facts
	cfg.Policy = map[string]string{"pitfalls": config.PolicyAppend}
	return &workspace{t: t,
		store: runs.Store{Dir: filepath.Join(root, "runs"), Rel: ".ledger/runs"},
		book: &proposal.Book{FactsDir: facts, FactsRel: ".ledger/facts",
			Proposals:    proposal.Dir{Path: filepath.Join(root, "proposals"), Rel: ".ledger/proposals"},
			PlaybooksDir: filepath.Join(root, "playbooks"), PlaybooksRel: ".ledger/playbooks", Config: cfg}}
}

func (w *workspace) record(id string, hour int, status string, edit func(r *runs.Record)) *runs.Record {
	w.t.Helper()
	r := &runs.Record{RunID: id, Status: status, StartedAt: time.Date(2026, 11, 20, hour, 0, 0, 0, time.UTC)}
	edit(r)
	e, _, err := w.store.Put(r, runs.PutOptions{Now: now})
	if err != nil {
		w.t.Fatal(err)
	}
	return e.Record
}

func (w *workspace) req(dry bool) Request {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i * 13)
	}
	return Request{Runs: w.store, Book: w.book, Now: now, Rand: bytes.NewReader(b), DryRun: dry}
}

func (w *workspace) proposals() []*proposal.Proposal {
	w.t.Helper()
	all, _, err := w.book.Proposals.List()
	if err != nil {
		w.t.Fatal(err)
	}
	return all
}

func withGotcha(g string) func(*runs.Record) {
	return func(r *runs.Record) { r.Digest.Gotchas = []string{g} }
}

func TestRunFilesEachPatternOnceAndNeverApplies(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for i, id := range []string{"r-a", "r-b", "r-c"} {
		w.record(id, i, runs.StatusSuccess, withGotcha("The fixture needs TZ=UTC"+strings.Repeat("!", i)))
	}
	dry, err := Run(context.Background(), w.req(true))
	if err != nil || len(dry.Filed) != 1 || dry.Filed[0].Proposal.ID != "" || len(w.proposals()) != 0 {
		t.Fatalf("dry run = %+v, %v; want one pattern it would file, and no file", dry, err)
	}
	res, err := Run(context.Background(), w.req(false))
	if err != nil || len(res.Filed) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("run = %+v, %v", res, err)
	}
	p := res.Filed[0].Proposal
	if p.Status != proposal.StatusPending || p.Category != Category || p.Content != "The fixture needs TZ=UTC" ||
		p.Pattern != runs.GotchaKey("the fixture needs tz utc") || p.Author != Author ||
		!slices.Equal(p.Evidence, evidence([]string{"r-a", "r-b", "r-c"})) {
		t.Fatalf("filed %+v; want a pending pitfalls proposal citing r-a, r-b, r-c", p)
	}
	if l, _ := ledger.Load(w.book.FactsDir, w.book.FactsRel); len(l.Facts()) != 0 {
		t.Fatalf("the append policy applied it: %v", l.Facts())
	}

	// A fourth run and a second consolidation: the pattern is filed.
	w.record("r-d", 5, runs.StatusSuccess, withGotcha("the fixture needs tz=utc"))
	again, err := Run(context.Background(), w.req(false))
	if err != nil || len(again.Filed) != 0 || len(again.Skipped) != 1 || again.Skipped[0].Proposal.ID != p.ID {
		t.Fatalf("again = %+v, %v; want the pattern skipped as filed by %s", again, err, p.ID)
	}

	// Rejected, it stays rejected: never filed again.
	if err := w.book.Reject(p, "not a pitfall", "rita", now); err != nil {
		t.Fatal(err)
	}
	after, err := Run(context.Background(), w.req(false))
	if err != nil || len(after.Filed) != 0 || len(after.Skipped) != 1 || len(w.proposals()) != 1 {
		t.Fatalf("after rejection = %+v, %v", after, err)
	}
}

func TestRunRefusesWhatTheGateRefusesAndGoesOn(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	secret := secretstest.Secrets()[0].Text
	for i, id := range []string{"r-a", "r-b", "r-c"} {
		// The records were written by a gate that let it through (an old
		// memctl, or a hand edit): consolidation refuses to copy it.
		w.record(id, i, runs.StatusSuccess, withGotcha("ports clash"))
		path, _ := w.store.Find(id)
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(path, bytes.Replace(data, []byte(`"ports clash"`), []byte(`"ports clash"`+", "+strconvQuote(secret)), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(context.Background(), w.req(false))
	if err != nil || len(res.Filed) != 1 || len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Warning, "github") {
		t.Fatalf("run = %+v, %v; want the ports gotcha filed and the secret's refused with the rule named", res, err)
	}
	if strings.Contains(res.Refused[0].Warning, secretstest.Secrets()[0].Text[len("export GITHUB_TOKEN="):]) {
		t.Fatal("the warning shows the secret")
	}
}

func strconvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func TestErrorPatternWithAFixIsACandidatePlaybook(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fail := func(r *runs.Record) {
		r.Errors = []runs.Error{{Excerpt: "parse.go:12: unexpected EOF", File: "parse.go"}}
		r.FilesChanged = []string{"parse.go"}
	}
	w.record("r-a", 1, runs.StatusFailure, fail)
	w.record("r-b", 2, runs.StatusFailure, fail)
	fixed := w.record("r-fix", 3, runs.StatusSuccess, func(r *runs.Record) {
		r.FilesChanged = []string{"parse.go"}
		r.Digest.Changes = []string{"Read the whole header before parsing."}
	})

	// Recording the fix files the candidate at once.
	res, err := Candidates(context.Background(), w.req(false), fixed)
	if err != nil || len(res.Filed) != 1 {
		t.Fatalf("candidates = %+v, %v", res, err)
	}
	p := res.Filed[0].Proposal
	if !p.IsPlaybook() || p.Status != proposal.StatusPending || p.Signature != fixed0Sig(t, w) ||
		!slices.Equal(p.Steps, []string{"Read the whole header before parsing."}) || p.ErrorText != "parse.go:<n>: unexpected EOF" ||
		!slices.Equal(p.Evidence, evidence([]string{"r-a", "r-b", "r-fix"})) || p.Pattern != "fix:"+p.Signature+":r-fix" {
		t.Fatalf("candidate %+v", p)
	}
	if again, err := Candidates(context.Background(), w.req(false), fixed); err != nil || len(again.Filed) != 0 || len(again.Skipped) != 1 {
		t.Fatalf("again = %+v, %v; want it skipped", again, err)
	}

	// A third failure makes the error a pattern; its fix is the same
	// candidate, filed already.
	w.record("r-c", 4, runs.StatusFailure, fail)
	all, err := Run(context.Background(), w.req(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range all.Filed {
		if o.Kind == KindFix || o.Kind == runs.PatternError {
			t.Errorf("filed %+v again", o)
		}
	}
	if len(all.Filed) != 1 || all.Filed[0].Kind != runs.PatternFile {
		t.Errorf("filed %+v; want only the failing file parse.go", all.Filed)
	}
}

func fixed0Sig(t *testing.T, w *workspace) string {
	e, err := w.store.Get("r-a")
	if err != nil {
		t.Fatal(err)
	}
	return e.Record.Errors[0].Signature
}

func TestCandidateStepsWithoutADigestNameTheFiles(t *testing.T) {
	t.Parallel()
	r := &runs.Record{RunID: "r-fix", FilesChanged: []string{"a.go", "b.go"}}
	if got := steps(r); !slices.Equal(got, []string{"Change a.go, b.go as run r-fix did."}) {
		t.Fatalf("steps = %q", got)
	}
	r.Digest.NextSteps = []string{"port it to v2"}
	r.Digest.Decisions = []string{"keep the old API"}
	if got := steps(r); !slices.Equal(got, []string{"keep the old API"}) {
		t.Fatalf("steps = %q; want the decisions, not the next steps", got)
	}
}

// TestAfterRecordFilesTheCandidateOnce: flush under [runs] consolidate =
// true files the candidate and the other patterns, the candidate once.
func TestAfterRecordFilesTheCandidateOnce(t *testing.T) {
	t.Parallel()
	for _, all := range []bool{false, true} {
		w := newWorkspace(t)
		for i, id := range []string{"r-a", "r-b", "r-c"} {
			w.record(id, i, runs.StatusFailure, func(r *runs.Record) {
				r.Errors = []runs.Error{{Excerpt: "boom"}}
				r.FilesChanged = []string{"a.go"}
			})
		}
		fixed := w.record("r-fix", 5, runs.StatusSuccess, func(r *runs.Record) { r.FilesChanged = []string{"a.go"} })
		res, err := AfterRecord(context.Background(), w.req(false), fixed, all)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, o := range res.Filed {
			kinds = append(kinds, o.Kind)
		}
		want := []string{KindFix}
		if all {
			want = append(want, runs.PatternFile) // the error's pattern is the fix, filed already
		}
		if !slices.Equal(kinds, want) || len(w.proposals()) != len(want) {
			t.Errorf("all=%v: filed %v, want %v", all, kinds, want)
		}
		if all && (len(res.Skipped) != 1 || res.Skipped[0].Kind != KindFix) {
			t.Errorf("all=%v: skipped %+v, want the fix", all, res.Skipped)
		}
	}
}

// TestWhatIsThereAlreadyIsSkippedNotRefused: a gotcha a person already
// wrote down as a fact is no warning at every session's end.
func TestWhatIsThereAlreadyIsSkippedNotRefused(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(w.book.FactsDir, "pitfalls.md"), []byte("# Pitfalls\n\n- Ports clash.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"r-a", "r-b", "r-c"} {
		w.record(id, i, runs.StatusSuccess, withGotcha("Ports clash."))
	}
	res, err := Run(context.Background(), w.req(false))
	if err != nil || len(res.Filed)+len(res.Refused) != 0 || len(res.Skipped) != 1 ||
		res.Skipped[0].Proposal != nil || !strings.Contains(res.Skipped[0].Warning, "says exactly this already") {
		t.Fatalf("run = %+v, %v; want the gotcha skipped, saying the fact has it", res, err)
	}
}

func TestRunListNamesAFewRuns(t *testing.T) {
	t.Parallel()
	if got := runList([]string{"r-1", "r-2", "r-3"}); got != "r-1, r-2, r-3" {
		t.Errorf("3 runs: %q", got)
	}
	var ids []string
	for _, c := range "abcdefghij" {
		ids = append(ids, "r-"+string(c))
	}
	if got := runList(ids); got != "r-a, r-b, r-c, r-d, r-e and 5 more" {
		t.Errorf("10 runs: %q", got)
	}
}
