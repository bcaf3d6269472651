package cli

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/tasks"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// The commands that print every issue they select: blocked --json and
// ready --json --limit 0 open the store through its cache, select, and
// stream the issues as indented JSON (the whole-process figures are in
// docs/performance.md).

func BenchmarkBlockedJSON1k(b *testing.B)  { benchIssueList(b, 1_000, blockedJSON) }
func BenchmarkBlockedJSON10k(b *testing.B) { benchIssueList(b, 10_000, blockedJSON) }
func BenchmarkReadyAllJSON1k(b *testing.B) { benchIssueList(b, 1_000, readyAllJSON) }
func BenchmarkReadyAllJSON10k(b *testing.B) {
	benchIssueList(b, 10_000, readyAllJSON)
}

func blockedJSON(w io.Writer, g *tasks.Graph) error { return writeBlockedJSON(w, g, g.Blocked()) }

func readyAllJSON(w io.Writer, g *tasks.Graph) error {
	ready, _ := g.Ready(tasks.ReadyFilter{}, time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	return writeIssueList(&Env{Out: w}, g, ready, true, "")
}

func benchIssueList(b *testing.B, n int, print func(io.Writer, *tasks.Graph) error) {
	dir := b.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	if err := os.WriteFile(path, taskstest.Graph(rand.New(rand.NewPCG(1, 2)), n, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := tasks.LoadCached(path, cache); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := tasks.LoadCached(path, cache)
		if err != nil {
			b.Fatal(err)
		}
		if err := print(io.Discard, tasks.NewGraph(s)); err != nil {
			b.Fatal(err)
		}
	}
}
