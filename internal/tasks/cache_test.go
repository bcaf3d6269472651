package tasks

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/fsx"
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
	if cold.Records()[0].lazy {
		t.Fatal("first load came from a cache that did not exist")
	}
	warm, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Records()[0].lazy {
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
	if err != nil || s.Records()[0].lazy {
		t.Fatalf("stale cache used: lazy=%v err=%v", s.Records()[0].lazy, err)
	}
	// A corrupt cache is ignored.
	if err := os.WriteFile(cache, []byte("MCTC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadCached(path, cache); err != nil || s.Records()[0].lazy {
		t.Fatalf("corrupt cache: lazy=%v err=%v", s.Records()[0].lazy, err)
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
	if err != nil || !s2.Records()[0].lazy {
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
	if err != nil || !warm.Records()[0].lazy {
		t.Fatalf("warm load after save: err=%v", err)
	}
	if !bytes.Equal(warm.Bytes(), onDisk) {
		t.Fatal("warm store does not match the saved file")
	}
}

// The graph the cache holds is the graph computed from the file, issue by
// issue, and a store changed after loading computes its graph again.
func TestCachedGraphIsTheComputedGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data := taskstest.Graph(rand.New(rand.NewPCG(7, 8)), 400, refNow)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cold, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if warm.lz == nil || NewGraph(warm).view == nil {
		t.Fatal("the warm store has no graph from the cache")
	}
	gc, gw := NewGraph(cold), NewGraph(warm)
	// Ready and blocked over the cache read only the issues that may
	// qualify: they give what the computed graph gives, for every filter.
	for _, f := range []ReadyFilter{{}, {Sort: SortHybrid}, {Sort: SortOldest, Limit: 5}, {Type: "gate"}, {Unassigned: true},
		{Labels: []string{"backend"}}, {Assignee: "alice"}} {
		r1, n1 := gc.Ready(f, refNow)
		r2, n2 := gw.Ready(f, refNow)
		if n1 != n2 || !slices.Equal(sortedIDs(r1), sortedIDs(r2)) {
			t.Errorf("Ready(%+v): %d %v from the file, %d %v from the cache", f, n1, sortedIDs(r1), n2, sortedIDs(r2))
		}
	}
	// Find and Count over the cache read entries in place: same answers,
	// same order.
	filters := map[string]Filter{"default": NewFilter()}
	for name, set := range map[string]func(*Filter){
		"all": func(f *Filter) { f.All = true }, "status": func(f *Filter) { f.Statuses = []string{StatusInProgress, StatusBlocked} },
		"type": func(f *Filter) { f.Type = "bug" }, "label": func(f *Filter) { f.Labels = []string{"backend"} },
		"no-assignee": func(f *Filter) { f.NoAssignee = true }, "priority": func(f *Filter) { f.PriorityMax = 1 },
		"title": func(f *Filter) { f.TitleContains = "issue 1" }, "parent": func(f *Filter) { f.Parent = "g-5" },
		"query": func(f *Filter) { f.Query = "issue 2" },
	} {
		f := NewFilter()
		set(&f)
		filters[name] = f
	}
	for name, f := range filters {
		for _, policy := range []string{"", SortPriority, SortHybrid} {
			o1, n1 := f.Find(cold, gc, policy, refNow, 7)
			o2, n2 := f.Find(warm, gw, policy, refNow, 7)
			if n1 == 0 && slices.Contains([]string{"default", "all", "status", "type", "priority", "title", "query"}, name) {
				t.Errorf("Find %s selects nothing: the comparison shows nothing", name)
			}
			if n1 != n2 || !slices.Equal(idsOf(o1), idsOf(o2)) {
				t.Errorf("Find %s %q: %d %v from the file, %d %v from the cache", name, policy, n1, idsOf(o1), n2, idsOf(o2))
			}
		}
		for _, by := range []string{"", "status", "label", "assignee"} {
			n1, g1, _ := f.Count(cold, gc, by)
			n2, g2, _ := f.Count(warm, gw, by)
			if n1 != n2 || !slices.Equal(g1, g2) {
				t.Errorf("Count %s by %q: %d %v from the file, %d %v from the cache", name, by, n1, g1, n2, g2)
			}
		}
	}
	// Stats over a store just opened from the cache (the reads above may
	// have made warm read everything): counted from the entries.
	fresh, err := LoadCached(path, cache)
	if err != nil || NewGraph(fresh).view == nil {
		t.Fatalf("no cached graph for stats (err %v)", err)
	}
	if s1, s2 := Count(cold, refNow), Count(fresh, refNow); s1 != s2 || s1.EpicsEligibleForClosure == 0 || s1.AverageLeadTimeHours == 0 {
		t.Errorf("stats: %+v from the file, %+v from the cache (the graph must have closed issues and epics to close)", s1, s2)
	}
	if b1, b2 := sortedIDs(gc.Blocked()), sortedIDs(gw.Blocked()); !slices.Equal(b1, b2) {
		t.Errorf("Blocked: %v from the file, %v from the cache", b1, b2)
	}
	if blocked := compareGraphs(t, gc, gw); blocked == 0 {
		t.Fatal("the generated graph has no blocked issue: the test shows nothing")
	}
	// A change after loading: the graph is computed, and sees it.
	for _, target := range warm.Issues() {
		for _, i := range warm.Issues() {
			if i == target || target.Status != StatusOpen || i.Status != StatusOpen || slices.Contains(gw.BlockedBy(i), target.ID) {
				continue
			}
			if warm.AddDep(i.ID, target.ID, DepBlocks, Actor{Name: "x"}, refNow) != nil {
				continue // a cycle
			}
			if warm.lz != nil || NewGraph(warm).view != nil {
				t.Fatal("the cached graph was used after a change")
			}
			now, err := warm.Get(i.ID)
			if err != nil {
				t.Fatal(err)
			}
			if by := NewGraph(warm).BlockedBy(now); !slices.Contains(by, target.ID) {
				t.Fatalf("after the change %s is blocked by %v, want %s", i.ID, by, target.ID)
			}
			return
		}
	}
	t.Fatal("no open issue to block")
}

// oldFileCached writes a generated graph of n issues (seed seed, seed+1)
// to issues.jsonl in a new directory, its times an hour back, and builds
// its cache: the file, the cache, the bytes written and the time set.
func oldFileCached(t *testing.T, seed uint64, n int) (path, cache string, data []byte, old time.Time) {
	t.Helper()
	dir := t.TempDir()
	path, cache = filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data = taskstest.Graph(rand.New(rand.NewPCG(seed, seed+1)), n, refNow)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old = time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil { // builds the cache
		t.Fatal(err)
	}
	return path, cache, data, old
}

// A cache is trusted by the file's stamp (size, modification and change
// times, inode) once it was written more than the racy window after the
// file changed; until then the checksum decides. An edit in place whose
// modification time is put back (cp -p, touch -r) moves the change time,
// which no call can set back: it is read.
func TestCacheTrustByStamp(t *testing.T) {
	t.Parallel()
	path, cache, data, old := oldFileCached(t, 9, 50)
	settle := func() { // the cache written long after the file: outside every window
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(cache, later, later); err != nil {
			t.Fatal(err)
		}
	}
	settle()
	if s, err := LoadCached(path, cache); err != nil || !s.Records()[0].lazy {
		t.Fatalf("an unchanged file was not read through its cache: err=%v", err)
	}
	// Edited in place, same size, the modification time put back: the
	// change time moved (after a clock tick), so the file is read.
	time.Sleep(50 * time.Millisecond)
	changed := bytes.Replace(data, []byte(`"title":"issue 0"`), []byte(`"title":"issue X"`), 1)
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	settle()
	s, err := LoadCached(path, cache)
	if err != nil || s.Records()[0].lazy {
		t.Fatalf("an edit with its time put back was trusted: err=%v", err)
	}
	if iss, _ := s.Get("g-0"); iss == nil || iss.Title != "issue X" {
		t.Fatal("the change was not read")
	}
	// Only the times changed: the checksum matches, the cache is used and
	// the new stamp recorded.
	if err := os.Chtimes(path, old.Add(time.Second), old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadCached(path, cache); err != nil || !s.Records()[0].lazy {
		t.Fatalf("a file whose times alone changed was not read through its cache: err=%v", err)
	}
}

// The racy window: a change that keeps the file's whole stamp (a second
// write in the same clock tick) is caught by the checksum while the cache
// was written less than the window after the file (100 ms for file
// systems with fine times, two seconds where times are whole seconds), and
// is not looked for once the cache is older than that.
func TestCacheRacyWindow(t *testing.T) {
	t.Parallel()
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, c := range []struct {
		name      string
		file      time.Time
		cacheLag  time.Duration // the cache's time after the file's
		wantFound bool          // the same-stamp change is caught
	}{
		{"fine times, cache 20 ms after", base.Add(123456789), 20 * time.Millisecond, true},
		{"fine times, cache 150 ms after", base.Add(123456789), 150 * time.Millisecond, false},
		{"whole seconds, cache 1 s after", base, time.Second, true},
		{"whole seconds, cache 3 s after", base, 3 * time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
			data := taskstest.Graph(rand.New(rand.NewPCG(9, 10)), 50, refNow)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadCached(path, cache); err != nil { // builds the cache
				t.Fatal(err)
			}
			// The stamp the cache recorded, with the file's times set to
			// c.file, as if it had been written then: a change within the
			// same tick would leave exactly this stamp.
			stamp, err := fsx.StatStamp(path)
			if err != nil {
				t.Fatal(err)
			}
			stamp.ModTime, stamp.ChangeTime = c.file.UnixNano(), c.file.UnixNano()
			header, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			le.PutUint64(header[16:], uint64(stamp.ModTime))
			copy(header[80:], headerStampTail(stamp))
			if err := os.WriteFile(cache, header, 0o644); err != nil {
				t.Fatal(err)
			}
			at := c.file.Add(c.cacheLag)
			if err := os.Chtimes(cache, at, at); err != nil {
				t.Fatal(err)
			}
			c2, cfi, err := fsx.ReadMappedStat(cache)
			if err != nil {
				t.Fatal(err)
			}
			changed := bytes.Replace(data, []byte(`"title":"issue 0"`), []byte(`"title":"issue X"`), 1)
			trusted := cacheMatches(c2, cfi, changed, stamp, filepath.Join(dir, "elsewhere"))
			if found := !trusted; found != c.wantFound {
				t.Errorf("the same-stamp change was caught: %v, want %v", found, c.wantFound)
			}
		})
	}
}

func idsOf(list []*Issue) []string {
	out := []string{}
	for _, i := range list {
		out = append(out, i.ID)
	}
	return out
}

// compareGraphs fails t where graph gw (from a cache) differs from gc
// (computed from the file), and returns how many issues are blocked.
func compareGraphs(t *testing.T, gc, gw *Graph) int {
	t.Helper()
	if len(gc.issues) != len(gw.issues) {
		t.Fatalf("%d issues from the file, %d from the cache", len(gc.issues), len(gw.issues))
	}
	blocked := 0
	for k := range gc.issues {
		ci, wi := gc.at(k), gw.at(k)
		if (ci == nil) != (wi == nil) {
			t.Fatalf("record %d: live %v from the file, %v from the cache", k, ci != nil, wi != nil)
		}
		if ci == nil {
			continue
		}
		if ci.Title != wi.Title || ci.Status != wi.Status || ci.Priority != wi.Priority || ci.Assignee != wi.Assignee ||
			ci.IssueType != wi.IssueType || ci.Comments != wi.Comments || !slices.Equal(ci.Labels, wi.Labels) ||
			!ci.UpdatedAt.Equal(wi.UpdatedAt) || !ci.ClosedAt.Equal(wi.ClosedAt) || !ci.StartedAt.Equal(wi.StartedAt) ||
			!ci.DeferUntil.Equal(wi.DeferUntil) || ci.Pinned != wi.Pinned || !slices.Equal(ci.Deps, wi.Deps) {
			t.Errorf("record %d: %+v from the file, %+v from the cache", k, *ci, *wi)
		}
		if got := gw.Store.live(ci.ID); got != wi {
			t.Errorf("record %d: looking up %s from the cache finds %v", k, ci.ID, got)
		}
		if ci.ID != wi.ID {
			t.Fatalf("issue %d: %s from the file, %s from the cache", k, ci.ID, wi.ID)
		}
		if !slices.Equal(gc.BlockedBy(ci), gw.BlockedBy(wi)) {
			t.Errorf("%s: blocked by %v, from the cache %v", ci.ID, gc.BlockedBy(ci), gw.BlockedBy(wi))
		}
		if len(gc.BlockedBy(ci)) > 0 {
			blocked++
		}
		o1, i1 := gc.AllCounts(ci)
		o2, i2 := gw.AllCounts(wi)
		b1, c1 := gc.BlocksCounts(ci)
		b2, c2 := gw.BlocksCounts(wi)
		if o1 != o2 || i1 != i2 || b1 != b2 || c1 != c2 {
			t.Errorf("%s: counts %d/%d %d/%d, from the cache %d/%d %d/%d", ci.ID, o1, i1, b1, c1, o2, i2, b2, c2)
		}
		if !slices.Equal(idsOf(gc.Children(ci.ID)), idsOf(gw.Children(wi.ID))) {
			t.Errorf("%s: children %v, from the cache %v", ci.ID, idsOf(gc.Children(ci.ID)), idsOf(gw.Children(wi.ID)))
		}
		if !slices.Equal(idsOf(gc.Dependents(ci.ID)), idsOf(gw.Dependents(wi.ID))) {
			t.Errorf("%s: dependents %v, from the cache %v", ci.ID, idsOf(gc.Dependents(ci.ID)), idsOf(gw.Dependents(wi.ID)))
		}
		p1, p2 := gc.Parent(ci), gw.Parent(wi)
		if (p1 == nil) != (p2 == nil) || p1 != nil && p1.ID != p2.ID {
			t.Errorf("%s: parent %v, from the cache %v", ci.ID, p1, p2)
		}
	}
	return blocked
}

// Writes refresh the cache with the graph kept up to date (patched where
// the change allows): after each of a random run of writes, the graph a
// warm load reads equals the graph computed from the file. With waits-for
// gates, creates and status changes build the graph anew; without them,
// they patch it.
func TestCacheGraphAfterWrites(t *testing.T) {
	t.Parallel()
	data := taskstest.Graph(rand.New(rand.NewPCG(11, 12)), 150, refNow)
	if !bytes.Contains(data, []byte(`"type":"waits-for"`)) {
		t.Fatal("the generated graph has no waits-for edge")
	}
	t.Run("waits-for", func(t *testing.T) { t.Parallel(); cacheGraphAfterWrites(t, data) })
	t.Run("no-gates", func(t *testing.T) {
		t.Parallel()
		cacheGraphAfterWrites(t, bytes.ReplaceAll(data, []byte(`"type":"waits-for"`), []byte(`"type":"related"`)))
	})
}

func cacheGraphAfterWrites(t *testing.T, data []byte) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 14))
	who := Actor{Name: "x"}
	ops := map[string]int{}
	var live []string
	for step := range 120 {
		s, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		// Ids come from the file, not the store: walking the store would
		// read it in full, and the writes would not take the path of a
		// store still read from the cache.
		if live == nil {
			data, _ := os.ReadFile(path)
			cold, _ := Parse(data)
			live = idsOf(cold.Issues())
		}
		type picked struct{ ID string }
		pick := func() picked { return picked{live[r.IntN(len(live))]} }
		var op string
		switch k := r.IntN(7); k {
		case 0:
			op = "title"
			title := fmt.Sprintf("t%d", step)
			_, err = s.Update(pick().ID, Changes{Title: &title}, refNow)
		case 1:
			op = "claim"
			_, err = s.Claim(pick().ID, who, refNow)
		case 2:
			op = "close"
			_, err = s.Close(pick().ID, "done", refNow)
		case 3:
			op = "create"
			n := NewIssue{Title: fmt.Sprintf("new %d", step), Type: "task"}
			if r.IntN(2) == 0 {
				n.Deps = []DepSpec{{Type: DepBlocks, ID: pick().ID}}
			}
			if r.IntN(2) == 0 {
				n.Parent = pick().ID
			}
			_, err = s.Create(n, "g", who, refNow)
			live = nil
		case 4:
			op = "dep"
			err = s.AddDep(pick().ID, pick().ID, DepBlocks, who, refNow)
		case 5:
			op = "comment"
			_, err = s.AddComment(pick().ID, "x", "note", strings.NewReader(fmt.Sprintf("%032d", step)), refNow)
		case 6:
			op = "reopen"
			_, err = s.Reopen(pick().ID, refNow)
		}
		if err != nil {
			continue // a refused change (a cycle, a closed issue…)
		}
		ops[op]++
		if s.lz != nil {
			ops["lazy"]++
		}
		if err := s.Save(path); err != nil {
			t.Fatal(err)
		}
		warm, err := LoadCached(path, cache)
		if err != nil || warm.lz == nil {
			t.Fatalf("step %d (%s): the cache Save wrote was not used: %v", step, op, err)
		}
		data, _ := os.ReadFile(path)
		cold, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		// A cache vouches for its file's validity (check relies on it):
		// every file memctl writes passes the full validation.
		if probs, _ := ValidateJSONL(data); len(probs) > 0 {
			t.Fatalf("step %d (%s): memctl wrote a file validation refuses: %+v", step, op, probs)
		}
		if stamp, err := fsx.StatStamp(path); err == nil {
			if n, ok := Vouched(data, stamp, cache); !ok || n != len(cold.Records()) {
				t.Errorf("step %d (%s): the cache vouches %v for %d records, the file has %d", step, op, ok, n, len(cold.Records()))
			}
		}
		compareGraphs(t, NewGraph(cold), NewGraph(warm))
		n1, ok1 := cold.nextCommentID()
		n2, ok2 := warm.nextCommentID()
		if n1 != n2 || ok1 != ok2 {
			t.Errorf("step %d (%s): next comment id %d %v from the file, %d %v from the cache", step, op, n1, ok1, n2, ok2)
		}
		if !bytes.Equal(warm.Bytes(), data) {
			t.Errorf("step %d (%s): the store read from the cache writes other bytes than the file's", step, op)
		}
		if t.Failed() {
			t.Fatalf("step %d (%s): the cached graph differs", step, op)
		}
	}
	for _, op := range []string{"title", "claim", "close", "create", "dep", "comment", "reopen", "lazy"} {
		if ops[op] == 0 {
			t.Errorf("no %s was made: the test did not cover it", op)
		}
	}
}

// Closing an issue unblocks its dependents and, through parent-child
// edges, their children: a write that reads only what it changes repairs
// all of them in the cache, and reopening blocks them again.
func TestCacheReblocksDescendants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	line := func(id, status, deps string) string {
		return `{"id":"` + id + `","title":"` + id + `","status":"` + status + `","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"` + deps + "}\n"
	}
	edge := func(from, to, typ string) string {
		return `{"issue_id":"` + from + `","depends_on_id":"` + to + `","type":"` + typ + `","created_at":"2026-01-01T00:00:00Z"}`
	}
	data := line("g-b", "open", "") +
		line("g-p", "open", `,"dependencies":[`+edge("g-p", "g-b", "blocks")+`]`) +
		line("g-c", "open", `,"dependencies":[`+edge("g-c", "g-p", "parent-child")+`]`) +
		line("g-d", "open", `,"dependencies":[`+edge("g-d", "g-c", "parent-child")+`]`) +
		line("g-x", "open", "")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := func() []string {
		s, err := LoadCached(path, cache)
		if err != nil || s.lz == nil {
			t.Fatalf("not read from the cache: %v", err)
		}
		return sortedIDs(NewGraph(s).Blocked())
	}
	if _, err := LoadCached(path, cache); err != nil { // builds the cache
		t.Fatal(err)
	}
	if got := blocked(); !slices.Equal(got, []string{"g-c", "g-d", "g-p"}) {
		t.Fatalf("blocked at first = %v", got)
	}
	for _, step := range []struct {
		op   func(s *Store) error
		want []string
	}{
		{func(s *Store) error { _, err := s.Close("g-b", "", refNow); return err }, []string{}},
		{func(s *Store) error { _, err := s.Reopen("g-b", refNow); return err }, []string{"g-c", "g-d", "g-p"}},
		{func(s *Store) error { _, err := s.Close("g-p", "", refNow); return err }, []string{}},
	} {
		s, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		if err := step.op(s); err != nil {
			t.Fatal(err)
		}
		if s.lz == nil {
			t.Fatal("the change read the whole store: the test does not take the path it is for")
		}
		// Before it is saved, a changed store's graph is not the cache's.
		other, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		if err := step.op(other); err != nil {
			t.Fatal(err)
		}
		if got := sortedIDs(NewGraph(other).Blocked()); !slices.Equal(got, step.want) {
			t.Fatalf("blocked in the changed store %v, want %v", got, step.want)
		}
		if err := s.Save(path); err != nil {
			t.Fatal(err)
		}
		got := blocked()
		file, _ := os.ReadFile(path)
		cold, _ := Parse(file)
		if want := sortedIDs(NewGraph(cold).Blocked()); !slices.Equal(want, step.want) || !slices.Equal(got, want) {
			t.Fatalf("blocked from the cache %v, from the file %v, want %v", got, want, step.want)
		}
	}
}

// Creating issues patches them into the cache, the id hash growing when it
// fills: every id is found from the cache afterwards.
func TestCachePatchGrowsTheIDHash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data := taskstest.Graph(rand.New(rand.NewPCG(21, 22)), 3, refNow)
	data = bytes.ReplaceAll(data, []byte(`"type":"waits-for"`), []byte(`"type":"related"`))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		t.Fatal(err)
	}
	var made []string
	for i := range 6 {
		s, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		n := NewIssue{Title: fmt.Sprintf("new %d", i), Type: "task"}
		if len(made) > 0 {
			n.Deps = []DepSpec{{Type: DepBlocks, ID: made[len(made)-1]}}
		}
		iss, err := s.Create(n, "g", Actor{Name: "x"}, refNow)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, iss.ID)
		if err := s.Save(path); err != nil {
			t.Fatal(err)
		}
		warm, err := LoadCached(path, cache)
		if err != nil || warm.lz == nil {
			t.Fatalf("not read from the cache: %v", err)
		}
		if slots := len(warm.lz.v.hash) / 4; slots < 2*(3+i+1) {
			t.Fatalf("%d ids in a hash of %d slots", 3+i+1, slots)
		}
		cold, _ := Parse(data)
		for _, id := range append(idsOf(cold.Issues()), made...) {
			if warm.lookup(id) == nil {
				t.Fatalf("after %d creates, %s is not in the id hash", i+1, id)
			}
			if _, err := warm.Get(id); err != nil {
				t.Fatalf("after %d creates, %s: %v", i+1, id, err)
			}
		}
		if i > 0 {
			w2, _ := LoadCached(path, cache)
			last, _ := w2.Get(made[i])
			if by := NewGraph(w2).BlockedBy(last); !slices.Equal(by, []string{made[i-1]}) {
				t.Fatalf("%s blocked by %v, want %s", made[i], by, made[i-1])
			}
		}
	}
}

// A create read from the cache keeps the derived counts of a bd export
// current: its target's dependent_count counts the new edge.
func TestCacheCreateKeepsDerivedCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data := `{"id":"g-a","title":"a","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","dependency_count":0,"dependent_count":1,"comment_count":0}
{"id":"g-b","title":"b","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","dependencies":[{"issue_id":"g-b","depends_on_id":"g-a","type":"blocks","created_at":"2026-01-01T00:00:00Z"}],"dependency_count":1,"dependent_count":0,"comment_count":0}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		t.Fatal(err)
	}
	s, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(NewIssue{Title: "c", Type: "task", Deps: []DepSpec{{Type: DepBlocks, ID: "g-a"}}}, "g", Actor{Name: "x"}, refNow); err != nil {
		t.Fatal(err)
	}
	if s.lz == nil {
		t.Fatal("the create read the whole store: the test does not take the path it is for")
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(path)
	first, _, _ := bytes.Cut(file, []byte("\n"))
	if !bytes.Contains(first, []byte(`"dependent_count":2`)) {
		t.Fatalf("g-a after the create: %s", first)
	}
}

// A save that copies unread lines from the file writes what a save of the
// whole store writes: CRLF endings become LF and blank lines go, as they
// do there.
func TestCacheSaveMatchesAFullSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	data := "{\"id\":\"g-a\",\"title\":\"a\",\"status\":\"open\",\"priority\":2,\"issue_type\":\"task\",\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\r\n\r\n" +
		"{\"_type\":\"memory\",\"key\":\"k\",\"value\":\"v\"}\r\n" +
		"{\"id\":\"g-b\",\"title\":\"b\",\"status\":\"open\",\"priority\":2,\"issue_type\":\"task\",\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\r\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		t.Fatal(err)
	}
	s, err := LoadCached(path, cache)
	if err != nil || s.lz == nil {
		t.Fatalf("not read from the cache: %v", err)
	}
	title := "b2"
	if _, err := s.Update("g-b", Changes{Title: &title}, refNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	full, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := full.Update("g-b", Changes{Title: &title}, refNow); err != nil {
		t.Fatal(err)
	}
	if want := full.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("save from the cache:\n%q\nsave of the whole store:\n%q", got, want)
	}
	warm, err := LoadCached(path, cache)
	if err != nil || !bytes.Equal(warm.Bytes(), got) {
		t.Fatalf("the cache after the save does not match the file: %v", err)
	}
}

// A cache whose entry points outside its sections or the file (a torn
// write, a disk error, another version's layout) is not used: the file is
// parsed instead, and nothing reads out of bounds.
func TestCacheEntryOutOfBoundsIsRejected(t *testing.T) {
	t.Parallel()
	path, cache, _, _ := oldFileCached(t, 11, 60)
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := LoadCached(path, cache); err != nil || !s.Records()[0].lazy {
		t.Fatalf("the intact cache was not used (err %v)", err)
	}
	fields := map[string]int{"start": eStart, "end": eEnd, "id": eID + 4, "title": eTitle + 4, "status": eStatus + 4, "type": eType + 4,
		"assignee": eAssignee + 4, "labels": eLabels + 4, "deps": eDeps + 4, "blocked": eBlocked + 4, "parents": eParents + 4,
		"children": eChildren + 4, "in": eIn + 4}
	for name, at := range fields {
		for _, k := range []int{0, 59} { // the first and the last entry
			bad := bytes.Clone(good)
			le.PutUint32(bad[headerSize+k*entrySize+at:], 0xFFFFFF00)
			if err := os.WriteFile(cache, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := LoadCached(path, cache)
			if err != nil {
				t.Fatalf("%s of entry %d: %v", name, k, err)
			}
			if s.Records()[0].lazy {
				t.Errorf("a cache with entry %d's %s out of bounds was used", k, name)
			}
		}
	}
}

// An id hash with no empty slot (damaged, yet within the bounds check)
// answers "not found" in bounded time.
func TestCacheFullIDHashDoesNotLoop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "issues.jsonl"), filepath.Join(dir, "tasks.cache")
	if err := os.WriteFile(path, taskstest.Graph(rand.New(rand.NewPCG(13, 14)), 20, refNow), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		t.Fatal(err)
	}
	s, err := LoadCached(path, cache)
	if err != nil || s.lz == nil {
		t.Fatalf("no cache (err %v)", err)
	}
	v := s.lz.v
	full := bytes.Clone(v.hash)
	for at := 0; at < len(full); at += 4 {
		le.PutUint32(full[at:], 1) // every slot names record 0
	}
	v.hash = full
	done := make(chan int)
	go func() { done <- v.find("g-nothere") }()
	select {
	case k := <-done:
		if k != -1 {
			t.Errorf("find of a missing id = %d", k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("find in a full id hash did not end")
	}
}
