package runs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// settle waits out the racy window, so that an index built from what is
// on disk now may be written.
func waitRacyWindow() { time.Sleep(fsx.FineRacyWindow + 20*time.Millisecond) }

func indexedStore(t *testing.T) Store {
	t.Helper()
	s := newStore(t)
	s.Index = filepath.Join(t.TempDir(), "warn.index")
	s.Playbooks = filepath.Join(filepath.Dir(s.Dir), "playbooks")
	s.TryLock = func() (func(), bool) { return func() {}, true }
	return s
}

// currentIndex is an indexed store where run r-1 failed in a.go, with a
// current index, written.
func currentIndex(t *testing.T) Store {
	t.Helper()
	s := indexedStore(t)
	mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go"}})
	waitRacyWindow()
	if _, err := s.WarnIndexed(WarnRequest{Files: []string{"a.go"}}); err != nil || !indexCurrent(t, s) {
		t.Fatalf("no index: %v", err)
	}
	return s
}

// indexCurrent reports whether the index file's key is the runs' key
// now: the next hook reads it instead of listing the runs.
func indexCurrent(t *testing.T, s Store) bool {
	t.Helper()
	st, ok := s.indexStamps()
	if !ok {
		t.Fatal("no key")
	}
	_, ok = s.readIndex(st.key(), st.newest)
	return ok
}

// Writes keep the index current (a hook after a hook does not list the
// runs), and what it answers is what listing answers, through a random
// run of records written, failed, fixed and cited.
func TestHookIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	s := indexedStore(t)
	mustPut(t, s, &Record{RunID: "r-seed", StartedAt: day0.AddDate(0, -1, 0), SessionID: "s-seed", Status: StatusFailure, FilesChanged: []string{"a.go"}})
	writePlaybook(t, s.Playbooks, "cccccccccccc", "- run:r-cited\n")
	waitRacyWindow()
	warnReq := func(f string) WarnRequest {
		return WarnRequest{Files: []string{f}, PlaybooksDir: s.Playbooks, PlaybooksRel: ".ledger/playbooks"}
	}
	if _, err := s.WarnIndexed(warnReq("a.go")); err != nil {
		t.Fatal(err)
	}
	if !indexCurrent(t, s) {
		t.Fatal("a settled index built under the lock was not written")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	files := []string{"a.go", "b.go", "pkg/c.go", "d.go"}
	ids := []string{"r-1", "r-2", "r-3", "r-cited", "r-5"}
	sessions := []string{"s-1", "s-2", "s-3", "s-seed", ""}
	for step := range 60 {
		r := &Record{RunID: ids[rng.IntN(len(ids))], StartedAt: day0.AddDate(0, 0, -rng.IntN(40)),
			SessionID: sessions[rng.IntN(len(sessions))], Status: []string{StatusSuccess, StatusFailure, StatusPartial}[rng.IntN(3)],
			FilesChanged: []string{files[rng.IntN(len(files))]}}
		if rng.IntN(3) == 0 {
			r.Errors = []Error{{Excerpt: "boom", File: files[rng.IntN(len(files))], Line: 1}}
		}
		if old, err := s.Get(r.RunID); err == nil && old.Record.SessionID != "" {
			r.SessionID = old.Record.SessionID // a record keeps its session
		}
		mustPut(t, s, r)
		if !indexCurrent(t, s) {
			t.Fatalf("step %d: the write of %s left the index behind", step, r.RunID)
		}
		for _, f := range files {
			want, err := s.Warn(warnReq(f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.WarnIndexed(warnReq(f))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := warnSummary(want), warnSummary(got); a != b {
				t.Fatalf("step %d, %s: Warn says %q, the index %q", step, f, a, b)
			}
		}
		for _, sid := range append(sessions[:4:4], "s-never") {
			wantID, wantFound, _ := s.SessionRun("claude-code", sid)
			gotID, gotFound, _ := s.SessionRunIndexed("claude-code", sid)
			if wantID != gotID || wantFound != gotFound {
				t.Fatalf("step %d, session %s: SessionRun %s %v, indexed %s %v", step, sid, wantID, wantFound, gotID, gotFound)
			}
		}
	}
}

// A session no record carries is answered from the index alone, without
// a listing (listings counts every List: this test and
// TestWarnIndexedAgreesWithWarn must not run in parallel); one a record carries under another id than the derived one
// is still found.
func TestSessionRunIndexed(t *testing.T) {
	s := indexedStore(t)
	mustPut(t, s, &Record{RunID: "r-own", StartedAt: day0, SessionID: "s-digest"})
	waitRacyWindow()
	if id, found, err := s.SessionRunIndexed("claude-code", "s-digest"); err != nil || !found || id != "r-own" {
		t.Errorf("s-digest: %s %v %v, want r-own", id, found, err)
	}
	if !indexCurrent(t, s) {
		t.Fatal("the index was not built")
	}
	before := listings.Load()
	id, found, err := s.SessionRunIndexed("claude-code", "s-new")
	if err != nil || found || id != SessionRunID("claude-code", "s-new") {
		t.Errorf("s-new: %s %v %v", id, found, err)
	}
	if n := listings.Load() - before; n != 0 {
		t.Errorf("a session no record carries took %d listings, want none", n)
	}
}

// A reader that cannot take the lock, or whose key is not settled, does
// not write the index (a writer could be changing the runs under it); its
// answer is the same.
func TestHookIndexWrittenOnlyUnderTheLockAndSettled(t *testing.T) {
	t.Parallel()
	s := indexedStore(t)
	e := mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go"}})
	// The month written a moment ago: its time in the future, so that the
	// key is within the racy window however slow this machine is.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Dir(s.fileOf(e)), later, later); err != nil {
		t.Fatal(err)
	}
	req := WarnRequest{Files: []string{"a.go"}}
	res, err := s.WarnIndexed(req)
	if err != nil || len(res.Runs) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(s.Index); err == nil {
		t.Error("an index whose key was taken within the racy window was written")
	}
	if err := os.Chtimes(filepath.Dir(s.fileOf(e)), day0, day0); err != nil {
		t.Fatal(err)
	}
	waitRacyWindow() // the change time Chtimes set
	busy := s
	busy.TryLock = func() (func(), bool) { return nil, false }
	if res, err := busy.WarnIndexed(req); err != nil || len(res.Runs) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(s.Index); err == nil {
		t.Error("an index was written without the lock")
	}
	if _, err := s.WarnIndexed(req); err != nil {
		t.Fatal(err)
	}
	if !indexCurrent(t, s) {
		t.Error("a settled index under the lock was not written")
	}
}

// An index another memctl wrote in an older layout, or that is damaged,
// is built again, never misread.
func TestHookIndexOtherVersionOrDamaged(t *testing.T) {
	t.Parallel()
	for _, content := range []string{`{"key":"x","runs":{}}`, `{"key":`, ""} {
		s := indexedStore(t)
		mustPut(t, s, &Record{RunID: "r-1", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go"}})
		waitRacyWindow()
		if err := os.WriteFile(s.Index, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.WarnIndexed(WarnRequest{Files: []string{"a.go"}})
		if err != nil || len(res.Runs) != 1 {
			t.Errorf("%q: %+v %v", content, res, err)
		}
	}
}

// A current index cut short (a crash that kept the rename, not the
// data) is no index: its key alone does not make it one.
func TestHookIndexCutShort(t *testing.T) {
	t.Parallel()
	s := currentIndex(t)
	data, err := os.ReadFile(s.Index)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), "\na.go\t")
	if i < 0 {
		t.Fatalf("no a.go line in\n%s", data)
	}
	if err := os.WriteFile(s.Index, data[:i+1], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.WarnIndexed(WarnRequest{Files: []string{"a.go"}})
	if err != nil || len(res.Runs) != 1 {
		t.Errorf("a.go after the index was cut short: %+v %v", res, err)
	}
}

// gc removes the index with the records: a removal in the tick of its key
// might not change the stamps.
func TestGCRemovesTheHookIndex(t *testing.T) {
	t.Parallel()
	s := indexedStore(t)
	mustPut(t, s, &Record{RunID: "r-old", StartedAt: day0.AddDate(-1, 0, 0), Status: StatusFailure, FilesChanged: []string{"a.go"}})
	waitRacyWindow()
	if _, err := s.WarnIndexed(WarnRequest{Files: []string{"a.go"}}); err != nil || !indexCurrent(t, s) {
		t.Fatalf("no index to remove: %v", err)
	}
	res, err := s.GC(GCOptions{Now: day0, KeepDays: 30})
	if err != nil || len(res.Deleted) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(s.Index); err == nil {
		t.Error("gc left the index")
	}
}

func TestSessionHashesRoundTrip(t *testing.T) {
	var x warnIndex
	var hs []uint64
	for i := range 100 {
		hs = append(hs, sessionHash(fmt.Sprint("s-", i%40)))
	}
	x.setSessions(hs)
	got := x.sessions()
	if len(got) != 40 || !slices.IsSorted(got) {
		t.Fatalf("%d hashes, sorted %v", len(got), slices.IsSorted(got))
	}
	for i := range 40 {
		if !x.hasSession(fmt.Sprint("s-", i)) {
			t.Errorf("s-%d lost", i)
		}
	}
	if x.hasSession("s-40") {
		t.Error("s-40 found")
	}
}

// Another program's changes are never absorbed: a record written beside
// memctl's (git), even in the moment of a write of memctl's, in the same
// month or another, and a playbook edited in place.
func TestHookIndexSeesOtherWriters(t *testing.T) {
	t.Parallel()
	req := func(f string) WarnRequest { return WarnRequest{Files: []string{f}} }
	found := func(t *testing.T, s Store, f string) bool {
		t.Helper()
		res, err := s.WarnIndexed(req(f))
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Runs) > 0
	}
	foreign := func(t *testing.T, s Store, month, id, file string) {
		t.Helper()
		r := &Record{RunID: id, StartedAt: day0, Status: StatusFailure, FilesChanged: []string{file}}
		r.SchemaVersion = SchemaVersion
		p := filepath.Join(s.Dir, month, id+".json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, Encode(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	current := func(t *testing.T) Store {
		s := indexedStore(t)
		mustPut(t, s, &Record{RunID: "r-mine", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go"}})
		mustPut(t, s, &Record{RunID: "r-old", StartedAt: day0.AddDate(0, -2, 0), Status: StatusSuccess})
		waitRacyWindow()
		if !found(t, s, "a.go") || !indexCurrent(t, s) {
			t.Fatal("no current index to start from")
		}
		return s
	}
	month := Month(day0)

	t.Run("beside", func(t *testing.T) {
		t.Parallel()
		s := current(t)
		foreign(t, s, month, "r-git", "git.go")
		if !found(t, s, "git.go") {
			t.Error("a record git wrote is missed")
		}
	})
	// Between Put's look at the index and its write, another program
	// writes: the index must not take the new key without the record.
	for _, where := range []string{month, Month(day0.AddDate(0, -2, 0)), Month(day0.AddDate(0, -5, 0))} {
		t.Run("during a write, in "+where, func(t *testing.T) {
			t.Parallel()
			s := current(t)
			rec := &Record{RunID: "r-mine", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go", "b.go"}, SchemaVersion: SchemaVersion}
			p, err := s.Find("r-mine")
			if err != nil {
				t.Fatal(err)
			}
			before := s.indexBefore(p)
			if before == nil {
				t.Fatal("Put would not keep the index current")
			}
			foreign(t, s, where, "r-git", "git.go")
			if err := os.WriteFile(p, Encode(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			s.ForgetIndex()
			s.indexPut(before, p, rec)
			if !found(t, s, "git.go") {
				t.Error("the record written during memctl's write is missed")
			}
			if !found(t, s, "b.go") {
				t.Error("memctl's own write is missed")
			}
		})
	}
	t.Run("a record removed and another added during a write", func(t *testing.T) {
		t.Parallel()
		s := current(t)
		mustPut(t, s, &Record{RunID: "r-gone", StartedAt: day0, Status: StatusSuccess})
		waitRacyWindow()
		if !found(t, s, "a.go") || !indexCurrent(t, s) {
			t.Fatal("no current index")
		}
		rec := &Record{RunID: "r-mine", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"a.go"}, SchemaVersion: SchemaVersion}
		p, _ := s.Find("r-mine")
		gone, _ := s.Find("r-gone")
		before := s.indexBefore(p)
		if before == nil {
			t.Fatal("Put would not keep the index current")
		}
		// git: one record out, another in, the month's count as it was
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		foreign(t, s, month, "r-git", "git.go")
		s.ForgetIndex()
		if err := os.WriteFile(p, Encode(rec), 0o644); err != nil {
			t.Fatal(err)
		}
		s.indexPut(before, p, rec)
		if !found(t, s, "git.go") {
			t.Error("the record added while another went is missed")
		}
	})
	t.Run("a linked playbook edited", func(t *testing.T) {
		t.Parallel()
		s := current(t)
		elsewhere := t.TempDir()
		writePlaybook(t, elsewhere, "eeeeeeeeeeee", "- run:r-nobody\n")
		if err := os.MkdirAll(s.Playbooks, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(elsewhere, "eeeeeeeeeeee.md"), filepath.Join(s.Playbooks, "eeeeeeeeeeee.md")); err != nil {
			if runtime.GOOS == "windows" {
				t.Skip("no symbolic links here:", err)
			}
			t.Fatal(err)
		}
		mustPut(t, s, &Record{RunID: "r-linked", StartedAt: day0, Status: StatusSuccess, FilesChanged: []string{"linked.go"}})
		waitRacyWindow()
		req := WarnRequest{Files: []string{"linked.go"}, PlaybooksDir: s.Playbooks, PlaybooksRel: ".ledger/playbooks"}
		if res, err := s.WarnIndexed(req); err != nil || len(res.Playbooks) != 0 || !indexCurrent(t, s) {
			t.Fatalf("before: %+v %v", res, err)
		}
		writePlaybook(t, elsewhere, "eeeeeeeeeeee", "- run:r-linked\n")
		if res, err := s.WarnIndexed(req); err != nil || len(res.Playbooks) != 1 {
			t.Errorf("the linked playbook that now cites r-linked is missed: %+v %v", res, err)
		}
	})
	t.Run("a playbook edited in place", func(t *testing.T) {
		t.Parallel()
		s := current(t)
		writePlaybook(t, s.Playbooks, "dddddddddddd", "- run:r-nobody\n")
		waitRacyWindow()
		if found(t, s, "cited.go") {
			t.Fatal("cited.go before anything cites it")
		}
		mustPut(t, s, &Record{RunID: "r-cited", StartedAt: day0, Status: StatusSuccess, FilesChanged: []string{"cited.go"}})
		// The playbook now cites r-cited: written in place, its directory's
		// stamp stays as it was.
		f, err := os.OpenFile(filepath.Join(s.Playbooks, "dddddddddddd.md"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("- run:r-cited\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		res, err := s.WarnIndexed(WarnRequest{Files: []string{"cited.go"}, PlaybooksDir: s.Playbooks, PlaybooksRel: ".ledger/playbooks"})
		if err != nil || len(res.Playbooks) != 1 {
			t.Errorf("the playbook that now cites r-cited is missed: %+v %v", res, err)
		}
	})
}

// An index carried from write to write is built again once the runs have
// moved on carryLimit past its last full build.
func TestHookIndexCarryLimit(t *testing.T) {
	t.Parallel()
	s := currentIndex(t)
	st, _ := s.indexStamps()
	idx, _ := s.readIndex(st.key(), st.newest)
	idx.Built = st.newest - int64(carryLimit) - 1
	s.writeIndex(idx)
	if indexCurrent(t, s) {
		t.Error("an index carried past carryLimit is still current")
	}
	idx.Built = st.newest - int64(carryLimit)
	s.writeIndex(idx)
	if !indexCurrent(t, s) {
		t.Error("an index at carryLimit is not current")
	}
}

// The index file reads back as written, paths with tabs, line breaks and
// quotes included; anything else is no index.
func TestIndexFileRoundTrip(t *testing.T) {
	t.Parallel()
	x := warnIndex{Key: "abc", Built: 1764400000123456789, Cited: []string{"r-1", "r-2"},
		Runs: map[string][]string{"a.go": {"r-1", "r-3"}, "dir with space/b.go": {"r-2"}, "tab\there.go": {"r-4"}, "line\nbreak.go": {"r-5"}, `"quoted".go`: {"r-6"}}}
	x.setSessions([]uint64{sessionHash("s1"), sessionHash("s2")})
	got, ok := decodeIndex(x.encode())
	if !ok || got.Key != x.Key || got.Built != x.Built || !slices.Equal(got.Cited, x.Cited) || got.Sessions != x.Sessions || len(got.Runs) != len(x.Runs) {
		t.Fatalf("read back %+v %v, wrote %+v", got, ok, x)
	}
	for p, ids := range x.Runs {
		if !slices.Equal(got.Runs[p], ids) {
			t.Errorf("%q: %q, want %q", p, got.Runs[p], ids)
		}
	}
	empty := warnIndex{Key: "k", Runs: map[string][]string{}}
	if got, ok := decodeIndex(empty.encode()); !ok || len(got.Runs) != 0 || len(got.Cited) != 0 {
		t.Errorf("an empty index: %+v %v", got, ok)
	}
	// Cut short at a line's end, or with sessions that are no set: no index.
	full := string(x.encode())
	if _, ok := decodeIndex([]byte(strings.TrimSuffix(full, "end\n"))); ok {
		t.Error("an index without its end line read as an index")
	}
	if i := strings.LastIndex(strings.TrimSuffix(full, "end\n"), "a.go\t"); i < 0 {
		t.Fatal("no a.go line")
	} else if _, ok := decodeIndex([]byte(full[:i])); ok {
		t.Error("an index cut before its last paths read as an index")
	}
	if _, ok := decodeIndex([]byte(strings.Replace(full, "sessions "+x.Sessions, "sessions QUFB", 1))); ok {
		t.Error("sessions of 3 bytes read as a set")
	}
	for _, bad := range []string{"", "{}", indexMagic + "\nkey k\n", indexMagic + "\nkey k\nbuilt x\ncited \nsessions \nend\n",
		indexMagic + "\nkey k\nbuilt 1\ncited \nsessions \nno tab\nend\n", indexMagic + "\nkey k\nbuilt 1\ncited \nsessions \n\"bad\tr-1\nend\n"} {
		if _, ok := decodeIndex([]byte(bad)); ok {
			t.Errorf("%q read as an index", bad)
		}
	}
}
