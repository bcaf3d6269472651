package audit

import (
	"context"
	"os"
	"testing"

	"github.com/memctl/memctl/internal/gitx"
)

// benchLog runs Log over the repository MEMCTL_BENCH_LOG_REPO names
// (skipped without it): a whole history of issues.jsonl, made with
// scripts/bench-log.sh. cold removes the log cache before each run.
func benchLog(b *testing.B, cold bool) {
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
		if cold {
			b.StopTimer()
			_ = os.Remove(CachePath(repo.CommonDir))
			b.StartTimer()
		}
		if _, err := Log(context.Background(), repo, Query{}, func(string) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogRepo(b *testing.B)       { benchLog(b, true) }
func BenchmarkLogRepoCached(b *testing.B) { benchLog(b, false) }
