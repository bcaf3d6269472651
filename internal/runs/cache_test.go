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
	settle(t, s)
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

// settle makes the cache look written long after its files, as it is when
// a list runs a while after the last write: only then are its entries
// trusted (fsx.RacyWindow).
func settle(tb testing.TB, s Store) {
	tb.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(s.Cache, later, later); err != nil {
		tb.Fatal(err)
	}
}

// An entry whose file was written within fsx.RacyWindow of the cache is
// not trusted: the file could have been written again in the same tick
// of a coarse clock, keeping its stamp. The cache below is forged to hold
// what the file does not, with the file's stamp; it is listed only once
// the cache is older than the file by more than the window.
func TestListCacheTrustsOnlySettledEntries(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.Cache = filepath.Join(t.TempDir(), "runs.cache")
	mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusSuccess})
	if got := listIDs(t, s, Filter{}); got != "r-1=success" {
		t.Fatal(got)
	}
	forge := func(age time.Duration) {
		entries, _ := readCache(s.Cache)
		c, ok := entries["2026-11/r-1.json"]
		if !ok {
			t.Fatalf("no cache entry: %v", entries)
		}
		forged := *c.r
		forged.Status = StatusFailure
		writeCache(s.Cache, []string{"2026-11/r-1.json"}, []cached{{c.stamp, &forged}})
		at := time.Unix(0, c.newest()).Add(age)
		if err := os.Chtimes(s.Cache, at, at); err != nil {
			t.Fatal(err)
		}
	}
	forge(time.Second)
	if got := listIDs(t, s, Filter{}); got != "r-1=success" {
		t.Errorf("an entry cached within the racy window was trusted: %s", got)
	}
	forge(3 * time.Second)
	if got := listIDs(t, s, Filter{}); got != "r-1=failure" {
		t.Errorf("a settled entry was not read from the cache (the test cannot tell): %s", got)
	}
}

// A file rewritten in place to the same size with its modification time
// put back (cp -p, rsync -t, touch -r) keeps its inode too; its change
// time, which no call can set, tells.
func TestListCacheSeesAnEditWithItsTimePutBack(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.Cache = filepath.Join(t.TempDir(), "runs.cache")
	e := mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusSuccess})
	file := s.fileOf(e)
	fi, _ := os.Stat(file)
	if got := listIDs(t, s, Filter{}); got != "r-1=success" {
		t.Fatal(got)
	}
	settle(t, s)
	data, _ := os.ReadFile(file)
	edited := strings.Replace(string(data), `"status": "success"`, `"status": "failure"`, 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil { // in place: same inode
		t.Fatal(err)
	}
	os.Chtimes(file, fi.ModTime(), fi.ModTime())
	if fi2, _ := os.Stat(file); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) || !os.SameFile(fi, fi2) {
		t.Fatal("the test needs the same size, time and inode")
	}
	settle(t, s)
	if got := listIDs(t, s, Filter{}); got != "r-1=failure" {
		t.Errorf("listed %s from the cache, want the edited file's r-1=failure", got)
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
