package tasks

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/tasks/taskstest"
)

func TestCacheIsUsedAndNeverTrustedBlindly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "cache", "tasks.cache")
	data := taskstest.Graph(rand.New(rand.NewPCG(5, 6)), 200, refNow)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ready := func(s *Store) []string {
		r, _ := NewGraph(s).Ready(ReadyFilter{}, refNow)
		return sortedIDs(r)
	}
	cold, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Records[0].lazy {
		t.Fatal("first load came from a cache that did not exist")
	}
	warm, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Records[0].lazy {
		t.Fatal("second load did not use the cache")
	}
	if !slices.Equal(ready(cold), ready(warm)) || !slices.Equal(sortedIDs(NewGraph(cold).Blocked()), sortedIDs(NewGraph(warm).Blocked())) {
		t.Fatal("ready or blocked differ between the parsed file and the cache")
	}
	if string(warm.Bytes()) != string(cold.Bytes()) {
		t.Fatal("a store from the cache writes other bytes than one from the file")
	}
	// A file changed behind memctl's back (same size) is parsed again.
	changed := bytes.Replace(data, []byte(`"title":"issue 0"`), []byte(`"title":"issue X"`), 1)
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadCached(path, cache)
	if err != nil || s.Records[0].lazy {
		t.Fatalf("stale cache used: lazy=%v err=%v", s.Records[0].lazy, err)
	}
	// A corrupt cache is ignored.
	if err := os.WriteFile(cache, []byte("MCTC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadCached(path, cache); err != nil || s.Records[0].lazy {
		t.Fatalf("corrupt cache: lazy=%v err=%v", s.Records[0].lazy, err)
	}
	// Save refreshes the cache, so the next load of the new file is warm
	// and sees the change.
	s, _ = LoadCached(path, cache)
	iss, err := s.Create(NewIssue{Title: "new one", Type: "task"}, "g", Actor{Name: "x"}, refNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	s2, err := LoadCached(path, cache)
	if err != nil || !s2.Records[0].lazy {
		t.Fatalf("save did not refresh the cache: err=%v", err)
	}
	got, err := s2.Get(iss.ID)
	if err != nil || got.Title != "new one" || got.partial {
		t.Fatalf("Get after a warm load = %+v, %v", got, err)
	}
	onDisk, _ := os.ReadFile(path)
	if string(s2.Bytes()) != string(onDisk) {
		t.Fatal("warm store does not match the file")
	}
}

func TestWarmGetKeepsTheIssuesPlaceInTheGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data := []byte(`{"id":"g-a","title":"epic","status":"open","priority":2,"issue_type":"epic","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}
{"id":"g-a.1","title":"child","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z","dependencies":[{"issue_id":"g-a.1","depends_on_id":"g-a","type":"parent-child","created_at":"2026-11-22T10:00:00Z"},{"issue_id":"g-a.1","depends_on_id":"g-b","type":"blocks","created_at":"2026-11-22T10:00:00Z"}]}
{"id":"g-b","title":"blocker","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}
`)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"cold", "warm"} {
		s, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		g := NewGraph(s)
		child, err := s.Get("g-a.1")
		if err != nil {
			t.Fatal(err)
		}
		blocker, _ := s.Get("g-b")
		if p := g.Parent(child); p == nil || p.ID != "g-a" {
			t.Errorf("%s: parent of g-a.1 = %v, want g-a", run, p)
		}
		if _, in := g.BlocksCounts(blocker); in != 1 {
			t.Errorf("%s: dependents of g-b = %d, want 1", run, in)
		}
		if by := g.BlockedBy(child); !slices.Equal(by, []string{"g-b"}) {
			t.Errorf("%s: g-a.1 blocked by %v, want [g-b]", run, by)
		}
	}
}

func TestByteOrderMarkIsReadPastAndKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	body := []byte(`{"id":"g-a","title":"a","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}
{"id":"g-b","title":"b","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}
`)
	data := append([]byte("\xEF\xBB\xBF"), body...)
	if p, n := ValidateJSONL(data); len(p) != 0 || n != 2 {
		t.Fatalf("ValidateJSONL = %v, %d records", p, n)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"cold", "warm"} {
		s, err := LoadCached(path, cache)
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		if got := s.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("%s: Bytes = %q, want the file with its mark", run, got)
		}
		a, err := s.Get("g-a")
		if err != nil || a.Title != "a" {
			t.Fatalf("%s: Get(g-a) = %+v, %v", run, a, err)
		}
	}
	s, _ := LoadCached(path, cache)
	title := "b2"
	if _, err := s.Update("g-b", Changes{Title: &title}, refNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	onDisk, _ := os.ReadFile(path)
	if !bytes.HasPrefix(onDisk, []byte("\xEF\xBB\xBF{\"id\":\"g-a\"")) || !bytes.Contains(onDisk, []byte(`"title":"b2"`)) {
		t.Fatalf("saved file = %q", onDisk)
	}
	// The cache Save wrote matches the new file: a warm load sees it.
	warm, err := LoadCached(path, cache)
	if err != nil || !warm.Records[0].lazy {
		t.Fatalf("warm load after save: err=%v", err)
	}
	if !bytes.Equal(warm.Bytes(), onDisk) {
		t.Fatal("warm store does not match the saved file")
	}
}
