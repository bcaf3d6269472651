package runs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Generate writes n run records of realistic size (digest, commands,
// tests, an error) into s, from a fixed seed: the same files on every run.
func generate(tb testing.TB, s Store, n int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		start := base.Add(time.Duration(rng.IntN(300*24)) * time.Hour)
		r := &Record{
			RunID: fmt.Sprintf("r-%010d", i), SessionID: fmt.Sprintf("sess-%d", i),
			TaskIDs: []string{fmt.Sprintf("app-%03x", rng.IntN(4096))},
			Agent:   Agent{Runtime: "claude-code", Model: "claude-sonnet"},
			Repo:    "github.com/acme/app", Branch: "main", CommitSHA: "0123456789abcdef0123456789abcdef01234567",
			StartedAt: start, EndedAt: start.Add(time.Duration(rng.IntN(120)) * time.Minute),
			Status: Statuses[rng.IntN(len(Statuses))],
			Digest: Digest{Intent: "make the importer resumable after a crash in the middle of a batch",
				Result:    "checkpoints every 1000 rows; resumes from the last one",
				Changes:   []string{"importer writes a checkpoint file", "startup reads it"},
				Decisions: []string{"checkpoint every 1000 rows"}, Gotchas: []string{"the fixture DB needs TZ=UTC"},
				NextSteps: []string{"port the fix to v2"}},
			FilesChanged: []string{"internal/importer/import.go", "internal/importer/checkpoint.go"},
			Commands:     []Command{{Cmd: "go test ./internal/importer/...", ExitCode: 1}, {Cmd: "go test ./...", ExitCode: 0}},
			Tests:        []Test{{Name: "TestResume", Status: TestFail}, {Name: "TestImport", Status: TestPass}},
			Errors:       []Error{{Signature: "e3b0c44298fc", Excerpt: "import_test.go:41: resume: want row 1000, got 0", File: "internal/importer/import_test.go", Line: 41}},
		}
		p := s.PathOf(r.RunID, r.StartedAt)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, Encode(r), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestGenerateRuns writes the generated records into $MEMCTL_GEN_RUNS
// (a workspace's .ledger/runs) for timing memctl runs as a whole process;
// it does nothing when the variable is unset.
func TestGenerateRuns(t *testing.T) {
	dir := os.Getenv("MEMCTL_GEN_RUNS")
	if dir == "" {
		return
	}
	generate(t, Store{Dir: dir, Rel: ".ledger/runs"}, 5000)
}

func benchmarkList(b *testing.B, n int, cache bool) {
	s := Store{Dir: filepath.Join(b.TempDir(), "runs"), Rel: ".ledger/runs"}
	generate(b, s, n)
	if cache {
		s.Cache = filepath.Join(b.TempDir(), "runs.cache")
		if _, err := s.List(Filter{}); err != nil { // builds the cache
			b.Fatal(err)
		}
		settle(b, s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l, err := s.List(Filter{})
		if err != nil || len(l.Entries) != n {
			b.Fatal(len(l.Entries), err)
		}
	}
}

func BenchmarkList1k(b *testing.B)        { benchmarkList(b, 1_000, false) }
func BenchmarkList10k(b *testing.B)       { benchmarkList(b, 10_000, false) }
func BenchmarkListCached1k(b *testing.B)  { benchmarkList(b, 1_000, true) }
func BenchmarkListCached10k(b *testing.B) { benchmarkList(b, 10_000, true) }

func BenchmarkDecode(b *testing.B) {
	data := []byte(full)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data, "r.json"); err != nil {
			b.Fatal(err)
		}
	}
}
