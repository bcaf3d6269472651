package audit

import (
	"context"
	"os"
	"testing"

	"github.com/memctl/memctl/internal/gitx"
)

// BenchmarkLogRepo runs Log over the repository MEMCTL_BENCH_LOG_REPO
// names (skipped without it): a whole history of issues.jsonl, as
// development.md describes making one.
func BenchmarkLogRepo(b *testing.B) {
	dir := os.Getenv("MEMCTL_BENCH_LOG_REPO")
	if dir == "" {
		b.Skip("MEMCTL_BENCH_LOG_REPO is not set")
	}
	repo, err := gitx.Find(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Log(context.Background(), repo, Query{}, func(string) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
