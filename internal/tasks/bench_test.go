package tasks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// benchData is n generated issues, or the file named by
// MEMCTL_BENCH_ISSUES_<n> (e.g. made by shared/bench/beads/gen_beads_jsonl.py).
func benchData(b *testing.B, n int) []byte {
	if p := os.Getenv(fmt.Sprintf("MEMCTL_BENCH_ISSUES_%d", n)); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	return taskstest.JSONL(rand.New(rand.NewPCG(1, 2)), n)
}

var benchNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func benchLoad(b *testing.B, n int) {
	data := benchData(b, n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func benchReady(b *testing.B, n int) {
	data := benchData(b, n)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		NewGraph(s).Ready(ReadyFilter{Limit: 100}, benchNow)
	}
}

func benchCreate(b *testing.B, n int) {
	data := benchData(b, n)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Create(NewIssue{Title: "bench", Type: "task", Priority: 2}, "bench", Actor{Name: "b"}, benchNow); err != nil {
			b.Fatal(err)
		}
		_ = s.Bytes()
	}
}

func benchUpdate(b *testing.B, n int) {
	data := benchData(b, n)
	s, _ := Parse(data)
	id := s.Issues()[n/2].ID
	st := StatusInProgress
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Update(id, Changes{Status: &st}, benchNow); err != nil {
			b.Fatal(err)
		}
		_ = s.Bytes()
	}
}

func BenchmarkLoad1k(b *testing.B)    { benchLoad(b, 1_000) }
func BenchmarkLoad10k(b *testing.B)   { benchLoad(b, 10_000) }
func BenchmarkReady1k(b *testing.B)   { benchReady(b, 1_000) }
func BenchmarkReady10k(b *testing.B)  { benchReady(b, 10_000) }
func BenchmarkCreate1k(b *testing.B)  { benchCreate(b, 1_000) }
func BenchmarkCreate10k(b *testing.B) { benchCreate(b, 10_000) }
func BenchmarkUpdate1k(b *testing.B)  { benchUpdate(b, 1_000) }
func BenchmarkUpdate10k(b *testing.B) { benchUpdate(b, 10_000) }

func benchReadyCached(b *testing.B, n int) {
	dir := b.TempDir()
	path, cache := dir+"/issues.jsonl", dir+"/tasks.cache"
	if err := os.WriteFile(path, benchData(b, n), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := LoadCached(path, cache)
		if err != nil {
			b.Fatal(err)
		}
		NewGraph(s).Ready(ReadyFilter{Limit: 100}, benchNow)
	}
}

func BenchmarkReadyCached1k(b *testing.B)  { benchReadyCached(b, 1_000) }
func BenchmarkReadyCached10k(b *testing.B) { benchReadyCached(b, 10_000) }

// benchCached times op on a store opened from a warm cache of n issues, as
// a command does; the file and cache are written once (op may change the
// store but is not saved unless it saves).
func benchCached(b *testing.B, n int, op func(b *testing.B, s *Store, path string, ids []string, i int)) {
	dir := b.TempDir()
	path, cache := dir+"/issues.jsonl", dir+"/tasks.cache"
	if err := os.WriteFile(path, benchData(b, n), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := LoadCached(path, cache)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, iss := range s.Issues() {
		if iss.Status == StatusOpen {
			ids = append(ids, iss.ID)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s, err := LoadCached(path, cache)
		if err != nil {
			b.Fatal(err)
		}
		op(b, s, path, ids, i)
		i++
	}
}

func benchShowCached(b *testing.B, n int) {
	benchCached(b, n, func(b *testing.B, s *Store, _ string, ids []string, i int) {
		iss, err := s.Get(ids[i%len(ids)])
		if err != nil {
			b.Fatal(err)
		}
		g := NewGraph(s)
		g.Parent(iss)
		g.Dependents(iss.ID)
	})
}

func benchListCached(b *testing.B, n int) {
	benchCached(b, n, func(b *testing.B, s *Store, _ string, _ []string, _ int) {
		NewFilter().Find(s, NewGraph(s), SortPriority, benchNow, 50)
	})
}

func benchUpdateCached(b *testing.B, n int) {
	benchCached(b, n, func(b *testing.B, s *Store, path string, ids []string, i int) {
		notes := fmt.Sprintf("note %d", i)
		if _, err := s.Update(ids[i%len(ids)], Changes{Notes: &notes}, benchNow); err != nil {
			b.Fatal(err)
		}
		if err := s.Save(path); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkShowCached1k(b *testing.B)    { benchShowCached(b, 1_000) }
func BenchmarkShowCached10k(b *testing.B)   { benchShowCached(b, 10_000) }
func BenchmarkListCached1k(b *testing.B)    { benchListCached(b, 1_000) }
func BenchmarkListCached10k(b *testing.B)   { benchListCached(b, 10_000) }
func BenchmarkUpdateCached1k(b *testing.B)  { benchUpdateCached(b, 1_000) }
func BenchmarkUpdateCached10k(b *testing.B) { benchUpdateCached(b, 10_000) }
