package proposal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
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
