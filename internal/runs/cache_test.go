package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func listIDs(t *testing.T, s Store, f Filter) string {
	t.Helper()
	l, err := s.List(f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range l.Entries {
		ids = append(ids, e.Record.RunID+"="+e.Record.StatusOrUnknown())
	}
	return strings.Join(ids, ",")
}

// The cache is never a second truth: a file written, rewritten in place,
// added or deleted after it was built is seen as it is now, and a cache
// that cannot be read is rebuilt.
func TestListCacheFollowsTheFiles(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.Cache = filepath.Join(t.TempDir(), "memctl", "runs.cache")
	generate(t, s, 20)
	plain := Store{Dir: s.Dir, Rel: s.Rel}
	want := listIDs(t, plain, Filter{})
	if got := listIDs(t, s, Filter{}); got != want {
		t.Fatalf("first list (building the cache) differs:\n%s\n%s", got, want)
	}
	if _, err := os.Stat(s.Cache); err != nil {
		t.Fatal("no cache written:", err)
	}
	if got := listIDs(t, s, Filter{}); got != want {
		t.Fatalf("cached list differs:\n%s\n%s", got, want)
	}
	l, _ := s.List(Filter{Limit: 1})
	cachedFull, _ := plain.List(Filter{Limit: 1})
	if a, b := string(Encode(l.Entries[0].Record)), string(Encode(cachedFull.Entries[0].Record)); a != b {
		t.Errorf("a cached record differs from its file:\n%s\n%s", a, b)
	}

	// rewritten in place, same size: the modification time tells
	e := l.Entries[0]
	file := s.fileOf(e)
	data, _ := os.ReadFile(file)
	status := e.Record.StatusOrUnknown()
	other := map[string]string{"success": "failure", "failure": "success", "partial": "unknown", "unknown": "partial"}[status]
	changed := strings.Replace(string(data), `"status": "`+status+`"`, `"status": "`+other+`"`, 1)
	os.WriteFile(file, []byte(changed), 0o644)
	later := time.Now().Add(time.Hour)
	os.Chtimes(file, later, later)
	if got := listIDs(t, s, Filter{}); got != listIDs(t, plain, Filter{}) || !strings.Contains(got, e.Record.RunID+"="+other) {
		t.Errorf("a rewritten file was listed from the cache: %s", got)
	}

	// deleted and added
	os.Remove(file)
	mustPut(t, s, &Record{RunID: "r-added", StartedAt: day0})
	if got := listIDs(t, s, Filter{}); got != listIDs(t, plain, Filter{}) || strings.Contains(got, e.Record.RunID+"=") || !strings.Contains(got, "r-added") {
		t.Errorf("after a delete and an add: %s", got)
	}

	// a broken cache is ignored and rebuilt
	for _, junk := range []string{"", "MCRC", "MCRC\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "garbage"} {
		os.WriteFile(s.Cache, []byte(junk), 0o644)
		if got := listIDs(t, s, Filter{}); got != listIDs(t, plain, Filter{}) {
			t.Errorf("with cache %q: %s", junk, got)
		}
	}
}

// A file that cannot be read is not cached: it is reported on every list.
func TestListCacheKeepsReportingBadFiles(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.Cache = filepath.Join(t.TempDir(), "runs.cache")
	mustPut(t, s, &Record{RunID: "r-ok", StartedAt: day0})
	os.WriteFile(filepath.Join(s.Dir, "2026-11", "r-bad.json"), []byte(`{"run_id": 5}`), 0o644)
	for range 2 {
		l, err := s.List(Filter{})
		if err != nil || len(l.Entries) != 1 || len(l.Problems) != 1 {
			t.Fatalf("entries %d, problems %v, %v", len(l.Entries), l.Problems, err)
		}
	}
}

// A record rewritten by Put (an atomic replacement) within one tick of a
// coarse clock, to the same size, is still read again: its inode changed.
func TestListCacheSeesAReplacementInTheSameTick(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.Cache = filepath.Join(t.TempDir(), "runs.cache")
	e := mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusSuccess})
	fi, _ := os.Stat(s.fileOf(e))
	if got := listIDs(t, s, Filter{}); got != "r-1=success" {
		t.Fatal(got)
	}
	mustPut(t, s, &Record{RunID: "r-1", Status: StatusFailure}) // same length
	os.Chtimes(s.fileOf(e), fi.ModTime(), fi.ModTime())
	if fi2, _ := os.Stat(s.fileOf(e)); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the test needs the same size and time")
	}
	if got := listIDs(t, s, Filter{}); got != "r-1=failure" {
		t.Errorf("listed %s from the cache, want the replaced file's r-1=failure", got)
	}
}
