package proposal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func book(t *testing.T, files map[string]string, policy map[string]string) *Book {
	t.Helper()
	root := t.TempDir()
	facts := filepath.Join(root, "facts")
	if err := os.MkdirAll(facts, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(facts, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default("x").Facts
	if policy != nil {
		cfg.Policy = policy
	}
	return &Book{FactsDir: facts, FactsRel: ".ledger/facts", Proposals: Dir{Path: filepath.Join(root, "proposals"), Rel: ".ledger/proposals"},
		PlaybooksDir: filepath.Join(root, "playbooks"), PlaybooksRel: ".ledger/playbooks", Config: cfg}
}

// rnd is a deterministic "random" source that never repeats a nonce.
func rnd() *bytes.Reader {
	b := make([]byte, 1024)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return bytes.NewReader(b)
}

func TestLexicalSimilar(t *testing.T) {
	t.Parallel()
	facts := []ledger.Fact{
		{ID: "a", Category: "p", Text: "Run the integration tests with -p 1 because they share port 7070."},
		{ID: "b", Category: "p", Text: "Deploys go to the blue pool."},
		{ID: "c", Category: "other", Text: "Run the integration tests with -p 1 because they share port 7070."},
	}
	got := Lexical{}.Similar("p", "The integration tests share port 7070, so run them with -p 1.", facts)
	if len(got) != 1 || got[0].FactID != "a" || got[0].Relation != "near-duplicate" {
		t.Errorf("similar = %+v, want a near-duplicate of a only (same category)", got)
	}
	got = Lexical{}.Similar("p", "Never run the integration tests with -p 1.", facts)
	if len(got) != 1 || got[0].Relation != "possible-contradiction" {
		t.Errorf("similar = %+v, want a possible contradiction", got)
	}
	if got := (Lexical{}).Similar("p", "Cache the schema validator.", facts); len(got) != 0 {
		t.Errorf("unrelated text matched %+v", got)
	}
}

func TestDecodeMneme(t *testing.T) {
	t.Parallel()
	p, err := Decode([]byte(`{"id":"m1","file":"notes/pitfalls.md","action":"create","content":"x","reason":"r","status":"pending","created":"2026-11-20 09:00:00","reviewed":""}`), ".ledger/proposals/m1.json")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Mneme || p.Category != "pitfalls" || p.Action != ActionAdd || p.CreatedAt.Hour() != 9 || p.ReviewedAt != nil {
		t.Errorf("decoded %+v", p)
	}
}

func TestNewIDRetriesTakenIDs(t *testing.T) {
	t.Parallel()
	p := &Proposal{Action: ActionAdd, Category: "p", Content: "x", CreatedAt: now}
	first, err := NewID(p, rnd(), func(string) bool { return false })
	if err != nil || !strings.HasPrefix(first, "p-") || len(first) != 9 {
		t.Fatalf("NewID = %q, %v", first, err)
	}
	second, err := NewID(p, rnd(), func(id string) bool { return id == first })
	if err != nil || second == first {
		t.Errorf("a taken id was returned again: %q", second)
	}
}

func TestProposeApproveRejectHistory(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n\n- Old fact. <!-- id:old -->\n"}, nil)
	p, err := b.Propose(Input{Action: ActionUpdate, FactID: "old", Content: "New fact.", Reason: "r", Author: "agent"}, now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	if p.Category != "pitfalls" || p.Status != StatusPending {
		t.Fatalf("proposal = %+v", p)
	}
	if err := b.Approve(p, "New fact, edited.", "rita", false, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(b.FactsDir, "pitfalls.md"))
	if string(got) != "# Pitfalls\n\n- New fact, edited. <!-- id:old -->\n" {
		t.Errorf("facts file = %q", got)
	}
	var actions []string
	for _, e := range p.History {
		actions = append(actions, e.Action)
	}
	if strings.Join(actions, ",") != "proposed,edited,approved" || p.History[2].OldContent != "Old fact." || p.AppliedFactID != "old" {
		t.Errorf("history = %+v, applied %q", p.History, p.AppliedFactID)
	}
	var st *StateError
	if err := b.Reject(p, "too late", "rita", now); !errors.As(err, &st) {
		t.Errorf("rejecting an approved proposal: %v", err)
	}
	q, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "Another.", Reason: "r", Author: "agent"}, now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	var ref *RefusedError
	if err := b.Reject(q, " ", "rita", now); !errors.As(err, &ref) {
		t.Errorf("reject without feedback: %v", err)
	}
	if err := b.Reject(q, "Not a pitfall.", "rita", now); err != nil || q.Status != StatusRejected || q.Feedback != "Not a pitfall." {
		t.Errorf("reject: %v %+v", err, q)
	}
	saved, err := b.Proposals.Get(q.ID)
	if err != nil || saved.Feedback != "Not a pitfall." {
		t.Errorf("saved = %+v, %v", saved, err)
	}
}

func TestPolicies(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"p.md": "- a <!-- id:a1 -->\n"}, map[string]string{"p": config.PolicyAppend})
	add, err := b.Propose(Input{Action: ActionAdd, Category: "p", Content: "b", Reason: "r"}, now, rnd())
	if err != nil || add.Status != StatusApproved || add.Reviewer != "policy:append" {
		t.Fatalf("append add = %+v, %v", add, err)
	}
	upd, err := b.Propose(Input{Action: ActionUpdate, FactID: "a1", Content: "a!", Reason: "r"}, now, rnd())
	if err != nil || upd.Status != StatusPending {
		t.Fatalf("append update = %+v, %v", upd, err)
	}
	b.Config.Policy["p"] = config.PolicyReadonly
	var ref *RefusedError
	if _, err := b.Propose(Input{Action: ActionRemove, FactID: "a1", Reason: "r"}, now, rnd()); !errors.As(err, &ref) {
		t.Fatalf("readonly remove: %v", err)
	}
}

func TestJudgeUsesASemanticSimilarity(t *testing.T) {
	t.Parallel()
	f := ledger.Fact{ID: "f-1", Category: "pitfalls", Text: "The integration tests share port 7070; run them with -p 1."}
	para := "Run the suite serially: concurrent runs fight over one socket."
	if _, ok := Judge(para, f, -1); ok {
		t.Fatal("no shared words and no cosine: flagged")
	}
	if s, ok := Judge(para, f, 0.9); !ok || s.Relation != "near-duplicate" || s.Score != 0.9 {
		t.Errorf("cosine .9: %+v %v, want a near-duplicate scored .9", s, ok)
	}
	if _, ok := Judge(para, f, 0.5); ok {
		t.Error("cosine .5 without shared words: flagged")
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact, proposed string
		relation, why  string // "" for not similar
	}{
		{"The monorepo uses Go 1.22 for every service.", "The monorepo uses Go 1.24 for every service.",
			"possible-contradiction", "the proposal says 1.24, the fact 1.22"},
		{"The staging database is reset every Sunday at 02:00 UTC.", "The staging database is reset every Sunday at 04:00 UTC.",
			"possible-contradiction", "the proposal says 04:00, the fact 02:00"},
		{"Run the integration tests in parallel.", "Don't run the integration tests in parallel.",
			"possible-contradiction", "the proposal negates, the fact does not"},
		{"Run the integration tests in parallel.", "dont run the 'integration' tests in parallel",
			"possible-contradiction", "the proposal negates, the fact does not"},
		{"Shell scripts are indented with tabs.", "Shell scripts are indented with spaces.",
			"possible-contradiction", "the proposal says spaces, the fact tabs"},
		{"The main database is PostgreSQL.", "The main database is MySQL.",
			"possible-contradiction", "the proposal says mysql, the fact postgresql"},
		// The same words, each ruling out what the other keeps.
		{"Use testify's require package in tests, not assert.", "Use testify's assert package in tests, not require.",
			"possible-contradiction", "the proposal rules out require, the fact assert"},
		{"Use log/slog for logging instead of zap.", "Use zap for logging, not log/slog.",
			"possible-contradiction", "the proposal rules out log, the fact zap"},
		{"Prefer small interfaces defined where they are consumed.", "Prefer large interfaces defined where they are consumed.",
			"possible-contradiction", "the proposal says large, the fact small"},
		// Reworded: the same fact.
		{"Background jobs run on Sidekiq with three queues: critical, default and low.",
			"Background jobs run on Sidekiq with 3 queues: critical, default, low.", "near-duplicate", ""},
		{"The search service needs at least 4 GB of memory.", "The search service needs at least 4GB of memory.", "near-duplicate", ""},
		{"Helm renders the Kubernetes manifests from deploy/charts.", "Our Kubernetes manifests are generated by Helm out of the deploy/charts directory.",
			"near-duplicate", ""},
		// "rather than" says what "not" does: no contradiction.
		{"Pagination uses opaque cursors, not page numbers.", "Paginate with opaque cursors rather than page numbers.", "near-duplicate", ""},
		// Another claim on the same topic, a fact on another matter.
		{"The e2e suite needs the dev server running on port 3000.", "The e2e suite runs in Chromium and Firefox on CI.", "", ""},
		{"Logs are structured JSON written with log/slog.", "Pull requests need two approvals before merging.", "", ""},
	} {
		s, ok := Judge(c.proposed, ledger.Fact{ID: "f-1", Text: c.fact}, -1)
		if c.relation == "" {
			if ok {
				t.Errorf("%q ~ %q: flagged %+v", c.proposed, c.fact, s)
			}
			continue
		}
		if !ok || s.Relation != c.relation || s.Why != c.why {
			t.Errorf("%q ~ %q: %+v %v, want %s (%q)", c.proposed, c.fact, s, ok, c.relation, c.why)
		}
	}
}

// TestKeepPendingIsNeverAppliedByPolicy: what memctl files on its own
// (consolidation) waits for a person even where agents' adds apply at once.
func TestKeepPendingIsNeverAppliedByPolicy(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n"}, map[string]string{"pitfalls": config.PolicyReadwrite})
	p, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "The fixture needs TZ=UTC.", Reason: "r",
		Pattern: "gotcha:0123456789ab", KeepPending: true}, now, rnd())
	if err != nil || p.Status != StatusPending || p.Pattern != "gotcha:0123456789ab" {
		t.Fatalf("propose = %+v, %v: want a pending proposal carrying its pattern", p, err)
	}
	got, err := b.Proposals.Get(p.ID)
	if err != nil || got.Pattern != p.Pattern || got.Status != StatusPending {
		t.Fatalf("stored = %+v, %v", got, err)
	}
	l, _ := ledger.Load(b.FactsDir, b.FactsRel)
	if len(l.Facts()) != 0 {
		t.Errorf("facts = %v: nothing may be applied", l.Facts())
	}
}

// TestDryRunProposesWithoutWriting: a dry run passes every check and
// returns the proposal, but writes nothing.
func TestDryRunProposesWithoutWriting(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n"}, map[string]string{"pitfalls": config.PolicyAppend})
	p, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "x", Reason: "r", DryRun: true}, now, rnd())
	if err != nil || p == nil {
		t.Fatalf("dry run = %+v, %v", p, err)
	}
	pb, err := b.ProposePlaybook(PlaybookInput{Signature: "0123456789ab", Steps: []string{"s"}, Evidence: []Evidence{{Kind: "run", Ref: "r-1"}}, DryRun: true}, now, rnd())
	if err != nil || pb == nil {
		t.Fatalf("playbook dry run = %+v, %v", pb, err)
	}
	if names, _ := b.Proposals.Names(); len(names) != 0 {
		t.Errorf("a dry run wrote %v", names)
	}
	if l, _ := ledger.Load(b.FactsDir, b.FactsRel); len(l.Facts()) != 0 {
		t.Errorf("a dry run applied %v", l.Facts())
	}
	if _, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: secretstest.Secrets()[0].Text, Reason: "r", DryRun: true}, now, rnd()); err == nil {
		t.Error("a dry run skipped the write gate")
	}
}
