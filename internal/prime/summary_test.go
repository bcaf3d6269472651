package prime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// proposalFile is a proposal file in memctl's format.
func proposalFile(id, status, category, content, factID, feedback string, reviewed time.Time) string {
	rev := "null"
	if !reviewed.IsZero() {
		rev = fmt.Sprintf("%q", reviewed.Format(time.RFC3339))
	}
	return fmt.Sprintf(`{"schema_version":1,"id":%q,"kind":"fact","action":"add","category":%q,"content":%q,"reason":"r",
"status":%q,"created_at":"2026-11-01T00:00:00Z","reviewed_at":%s,"feedback":%q,"applied_fact_id":%q}`,
		id, category, content, status, rev, feedback, factID)
}

// summaryWorkspace has facts, proposals of every status, tasks and runs.
func summaryWorkspace(t *testing.T) (*config.Workspace, Options) {
	facts := "# Architecture\n\n- Old fact.\n- Approved fact.\n- Fact three.\n"
	approvedID := ledger.Parse("architecture", "a.md", []byte(facts)).Facts[1].ID
	ws := testWorkspace(t, map[string]string{
		".ledger/facts/architecture.md": facts,
		".ledger/facts/pitfalls.md":     "# Pitfalls\n\n- Readable.\n-\n",
		".ledger/facts/preferences.md":  "# Preferences\n\n- Use tabs.\n",
		".ledger/proposals/p-a.json":    proposalFile("p-a", "approved", "architecture", "Approved fact.", approvedID, "", now0.Add(-time.Hour)),
		".ledger/proposals/p-r.json":    proposalFile("p-r", "rejected", "pitfalls", "Rejected.", "", "Say why.", now0.Add(-2*time.Hour)),
		".ledger/proposals/p-old.json":  proposalFile("p-old", "rejected", "pitfalls", "Too old.", "", "Old.", now0.Add(-30*24*time.Hour)),
		".ledger/proposals/p-p.json":    proposalFile("p-p", "pending", "pitfalls", "Pending.", "", "", time.Time{}),
		".ledger/proposals/p-bad.json":  "{",
		config.IssuesFile:               string(taskstest.JSONL(rand.New(rand.NewPCG(1, 1)), 50)),
	})
	ws.Config.Runs.Enabled = true
	git := ws.Repo.GitDir
	opts := Options{Actor: "alice", Branch: "main", TasksCache: filepath.Join(git, "memctl", "tasks.cache"),
		Runs:  runs.Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir, Cache: filepath.Join(git, "memctl", "runs.cache")},
		Files: []string{"lex.go"}, Now: now0, PinsDir: filepath.Join(git, "memctl", "pins")}
	put := func(id, branch, status, file string, started time.Time) {
		r := &runs.Record{RunID: id, Branch: branch, Status: status, StartedAt: started,
			Digest: runs.Digest{Intent: "intent of " + id}, FilesChanged: []string{file}}
		if _, _, err := opts.Runs.Put(r, runs.PutOptions{Now: now0}); err != nil {
			t.Fatal(err)
		}
	}
	put("r-1", "main", runs.StatusFailure, "internal/lex.go", now0.Add(-48*time.Hour))
	put("r-2", "main", runs.StatusSuccess, "other.go", now0.Add(-24*time.Hour))
	put("r-3", "topic", runs.StatusFailure, "/abs/lex.go", now0.Add(-12*time.Hour))
	if err := os.WriteFile(filepath.Join(opts.Runs.Dir, runs.Month(now0), "r-bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SavePins(opts.PinsDir, "alice", []Pin{{ID: approvedID, Kind: KindFact}, {ID: "r-3", Kind: KindRun}}); err != nil {
		t.Fatal(err)
	}
	return ws, opts
}

// cached says which summaries prime would read from their files now: the
// facts and proposals', the tasks', the runs'. A summary that does not
// hold is rebuilt and stored, as Build does.
func cached(t *testing.T, ws *config.Workspace, opts Options) (ledger, tasks, runs bool) {
	t.Helper()
	ledger = (&gathered{}).readLedger(ws, opts)
	s, err := loadSummary(ws.Path(config.IssuesFile), opts.TasksCache, opts.Now)
	if err != nil {
		t.Fatal(err)
	}
	v, err := loadRuns(opts.Runs)
	if err != nil {
		t.Fatal(err)
	}
	return ledger, s.cached, v.listing == nil
}

// TestSummariesAreTheFiles: a pack built from the summaries is the pack
// built from the files; each change of a file makes its summary, and only
// its, be built again, and the new summary holds the change.
func TestSummariesAreTheFiles(t *testing.T) {
	ws, opts := summaryWorkspace(t)
	first := Build(context.Background(), ws, opts) // reads the files, writes the summaries
	for _, f := range []string{"prime-ledger.cache", "prime-runs.cache", "prime-tasks.cache"} {
		if _, err := os.Stat(filepath.Join(ws.Repo.GitDir, "memctl", f)); err != nil {
			t.Fatalf("no %s: %v", f, err)
		}
	}
	settle(t, ws)
	if l, tk, r := cached(t, ws, opts); !l || !tk || !r {
		t.Fatalf("nothing changed, yet read from the files: ledger %v, tasks %v, runs %v", !l, !tk, !r)
	}
	if v, err := loadRuns(opts.Runs); err != nil || v.listing != nil || !v.sum.named {
		t.Fatalf("the run summary: %+v, %v (want read from its file, some run naming a file)", v, err)
	}
	second := Build(context.Background(), ws, opts)
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("from the summaries:\n%s\n%v\nfrom the files:\n%s\n%v", second.Text(), second.Problems, first.Text(), first.Problems)
	}
	text := first.Text()
	for _, want := range []string{"Approved fact.", "p-r [add pitfalls]", "1 proposal waits", "r-1 run [failure] in lex.go",
		"r-3 run [failure] in lex.go", "r-2 intent: intent of r-2", "r-3 run [failure] intent of r-3", "[team] Use tabs."} {
		if !strings.Contains(text, want) {
			t.Errorf("the pack lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Too old.") {
		t.Errorf("a rejection older than 14 days is shown:\n%s", text)
	}
	if len(first.Problems) != 3 { // the empty item, the bad proposal, the bad run
		t.Errorf("problems: %v", first.Problems)
	}

	write := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(ws.Path(rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linked := filepath.Join(t.TempDir(), "invariants.md")
	const ledgerPart, tasksPart, runsPart = 0, 1, 2
	for _, step := range []struct {
		name   string
		change func()
		part   int    // the summary the change is in
		want   string // in the pack after it
	}{
		{"a fact edited in place", func() { write(".ledger/facts/pitfalls.md", "# Pitfalls\n\n- Edited.\n") }, ledgerPart, "Edited."},
		{"a fact edited in place, same size, mtime put back", func() {
			editInPlace(t, ws.Path(".ledger/facts/preferences.md"), "# Preferences\n\n- Use TABS.\n")
		}, ledgerPart, "Use TABS."},
		{"a facts file that is a link", func() {
			if err := os.WriteFile(linked, []byte("# Invariants\n\n- Linked fact.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(linked, ws.Path(".ledger/facts/invariants.md")); err != nil {
				t.Fatal(err)
			}
		}, ledgerPart, "Linked fact."},
		{"the file a facts link names, replaced", func() {
			tmp := linked + ".new"
			if err := os.WriteFile(tmp, []byte("# Invariants\n\n- Linked fact, edited.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, linked); err != nil {
				t.Fatal(err)
			}
		}, ledgerPart, "Linked fact, edited."},
		{"a proposal added", func() {
			write(".ledger/proposals/p-q.json", proposalFile("p-q", "pending", "pitfalls", "Another.", "", "", time.Time{}))
		}, ledgerPart, "2 proposals wait"},
		{"a run added", func() {
			if _, _, err := opts.Runs.Put(&runs.Record{RunID: "r-4", Branch: "main", StartedAt: now0.Add(-time.Hour),
				Digest: runs.Digest{Intent: "newest"}}, runs.PutOptions{Now: now0}); err != nil {
				t.Fatal(err)
			}
		}, runsPart, "r-4 intent: newest"},
		{"a task added", func() {
			f, err := os.OpenFile(ws.Path(config.IssuesFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"id":"app-zz","title":"Just added","status":"in_progress","assignee":"alice","priority":0,"created_at":"2026-11-01T00:00:00Z"}` + "\n"); err != nil {
				t.Fatal(err)
			}
		}, tasksPart, "Just added"},
	} {
		nextTick(t)
		step.change()
		got := [3]bool{}
		got[ledgerPart], got[tasksPart], got[runsPart] = cached(t, ws, opts)
		for part, name := range []string{"facts and proposals", "tasks", "runs"} {
			if got[part] != (part != step.part) {
				t.Errorf("%s: the summary of the %s read from its file: %v, want %v", step.name, name, got[part], part != step.part)
			}
		}
		settle(t, ws)
		if l, tk, r := cached(t, ws, opts); !l || !tk || !r {
			t.Errorf("%s: the rebuilt summaries were not stored: ledger %v, tasks %v, runs %v", step.name, l, tk, r)
		}
		if text := Build(context.Background(), ws, opts).Text(); !strings.Contains(text, step.want) {
			t.Errorf("%s: the pack from the summaries lacks %q:\n%s", step.name, step.want, text)
		}
	}
}

// TestRunSummaryWriteDuringList: a record written while List reads the
// others is not hidden by a summary of the others stored under the
// directory's new stamp.
func TestRunSummaryWriteDuringList(t *testing.T) {
	ws, opts := summaryWorkspace(t)
	list := func(f runs.Filter) (runs.Listing, error) {
		l, err := opts.Runs.List(f)
		nextTick(t) // the write is after the key was taken, on any clock
		if _, _, err := opts.Runs.Put(&runs.Record{RunID: "r-5", Branch: "main", StartedAt: now0.Add(-time.Minute),
			Digest: runs.Digest{Intent: "during the listing"}}, runs.PutOptions{Now: now0}); err != nil {
			t.Fatal(err)
		}
		return l, err
	}
	if _, err := loadRunsWith(opts.Runs, list); err != nil {
		t.Fatal(err)
	}
	settle(t, ws)
	v, err := loadRuns(opts.Runs)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := v.last("main", ""); err != nil || r == nil || r.RunID != "r-5" {
		t.Fatalf("the last run of main: %+v, %v; want r-5 (from the summary: %v)", r, err, v.listing == nil)
	}
	// With nothing written during List, the summary is stored, under the
	// list cache's new stamp.
	settle(t, ws)
	if v, err := loadRuns(opts.Runs); err != nil || v.listing != nil {
		t.Errorf("the summary after a quiet List was not stored: %v", err)
	}
}

// TestSummariesRacy: the facts and proposals' summary and the runs' are
// not trusted when written within fsx.RacyWindow of their sources' newest
// time, and are from then on.
func TestSummariesRacy(t *testing.T) {
	ws, opts := summaryWorkspace(t)
	Build(context.Background(), ws, opts)
	_, ledgerNewest, err := ledgerKey(ws)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := readRunsKey(opts.Runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, after := range []time.Duration{time.Second, fsx.RacyWindow} {
		for p, newest := range map[string]int64{"prime-ledger.cache": ledgerNewest, "prime-runs.cache": k.newest} {
			when := time.Unix(0, newest).Add(after)
			if err := os.Chtimes(filepath.Join(ws.Repo.GitDir, "memctl", p), when, when); err != nil {
				t.Fatal(err)
			}
		}
		l, _, r := cached(t, ws, opts)
		if want := after >= fsx.RacyWindow; l != want || r != want {
			t.Errorf("written %v after the sources: ledger read from its summary %v, runs %v; want %v", after, l, r, want)
		}
	}
}

// TestLastIsTheActors: the last session is the actor's own newest telling
// run on the branch, else the newest that names no actor (recorded before
// memctl recorded actors), never another actor's.
func TestLastIsTheActors(t *testing.T) {
	entry := func(id, actor string, at time.Time) runs.Entry {
		return runs.Entry{Path: ".ledger/runs/2026-11/" + id + ".json", Record: &runs.Record{RunID: id, Branch: "main", Actor: actor,
			StartedAt: at, Digest: runs.Digest{Intent: "work of " + id}}}
	}
	l := runs.Listing{Entries: []runs.Entry{ // newest first
		entry("r-ann", "ann", now0),
		entry("r-bob", "bob", now0.Add(-time.Hour)),
		entry("r-old", "", now0.Add(-2*time.Hour)),
	}}
	v := &runsView{listing: &l}
	sum := summarize(l)
	for actor, want := range map[string]string{"ann": "r-ann", "bob": "r-bob", "carol": "r-old"} {
		r, err := v.last("main", actor)
		if err != nil || r == nil || r.RunID != want {
			t.Errorf("last(main, %s) from the listing = %+v, %v; want %s", actor, r, err, want)
		}
		rel, ok := sum.last[lastKey("main", actor)]
		if !ok {
			rel, ok = sum.last[lastKey("main", "")]
		}
		if !ok || !strings.HasSuffix(rel, "/"+want+".json") {
			t.Errorf("the summary's last run of main for %s = %q, want %s", actor, rel, want)
		}
	}
}
