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

// TestSummariesAreTheFiles: a pack built from the summaries is the pack
// built from the files, and a change of a file is seen.
func TestSummariesAreTheFiles(t *testing.T) {
	ws, opts := summaryWorkspace(t)
	first := Build(context.Background(), ws, opts) // reads the files, writes the summaries
	for _, f := range []string{"prime-ledger.cache", "prime-runs.cache", "prime-tasks.cache"} {
		if _, err := os.Stat(filepath.Join(ws.Repo.GitDir, "memctl", f)); err != nil {
			t.Fatalf("no %s: %v", f, err)
		}
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

	// A fact edited in place, a proposal and a run added: all seen.
	if err := os.WriteFile(ws.Path(".ledger/facts/pitfalls.md"), []byte("# Pitfalls\n\n- Edited.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.Path(".ledger/proposals/p-q.json"), []byte(proposalFile("p-q", "pending", "pitfalls", "Another.", "", "", time.Time{})), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := opts.Runs.Put(&runs.Record{RunID: "r-4", Branch: "main", StartedAt: now0.Add(-time.Hour),
		Digest: runs.Digest{Intent: "newest"}}, runs.PutOptions{Now: now0}); err != nil {
		t.Fatal(err)
	}
	text = Build(context.Background(), ws, opts).Text()
	for _, want := range []string{"Edited.", "2 proposals wait", "r-4 intent: newest"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the changes, the pack lacks %q:\n%s", want, text)
		}
	}
}
