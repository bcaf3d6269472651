package proposal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/ledger"
)

// BenchmarkList1k reads 1,000 proposal files, as review --list does.
func BenchmarkList1k(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		p := &Proposal{ID: fmt.Sprintf("p-%07d", i), Action: ActionAdd, Category: "pitfalls",
			Content: fmt.Sprintf("Proposal %d: keep the ready queue sorted by priority, then age.", i),
			Reason:  "seen in a run", Author: "agent", Status: StatusPending,
			CreatedAt: time.Date(2026, 11, 20, 0, 0, i, 0, time.UTC)}
		if err := os.WriteFile(filepath.Join(dir, p.ID+".json"), Encode(p), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	d := Dir{Path: dir, Rel: ".ledger/proposals"}
	b.ReportAllocs()
	for b.Loop() {
		ps, _, err := d.List()
		if err != nil || len(ps) != 1000 {
			b.Fatal(len(ps), err)
		}
	}
}

// BenchmarkJudge1k judges a proposed text against 1,000 facts of its
// category, as propose does (Lexical.Similar: every fact of the category).
// The facts are the labelled pairs' texts, each with a number.
func BenchmarkJudge1k(b *testing.B) {
	var texts []string
	for _, p := range readPairs(b) {
		texts = append(texts, p.Fact, p.Proposed)
	}
	facts := make([]ledger.Fact, 1000)
	for i := range facts {
		facts[i] = ledger.Fact{ID: fmt.Sprintf("f-%04d", i), Category: "conventions", Text: fmt.Sprintf("%s (%d)", texts[i%len(texts)], i)}
	}
	const proposed = "Run the integration tests one at a time with -p 1, because every test binds port 7070."
	b.ReportAllocs()
	for b.Loop() {
		Lexical{}.Similar("conventions", proposed, facts)
	}
}
