package prime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

var now0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// testWorkspace is a workspace on disk with the given files (relative
// paths), runs off so that no git status runs.
func testWorkspace(t testing.TB, files map[string]string) *config.Workspace {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := filepath.Join(dir, ".git")
	if err := os.MkdirAll(git, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := &config.Workspace{Repo: &gitx.Repo{Root: dir, GitDir: git, CommonDir: git}, Root: dir, Config: config.Default("app")}
	ws.Config.Runs.Enabled = false
	return ws
}

func readyIDs(lines []taskLine) []string {
	out := []string{}
	for _, l := range lines {
		out = append(out, l.ID)
	}
	return out
}

// TestSummaryIsReady: the summary's ready tasks are memctl ready's at
// every time, whether it is read from its file or rebuilt: the file holds
// only between the deferral times around the moment it was built.
func TestSummaryIsReady(t *testing.T) {
	data := taskstest.Graph(rand.New(rand.NewPCG(3, 4)), 400, now0)
	ws := testWorkspace(t, map[string]string{config.IssuesFile: string(data)})
	issues := ws.Path(config.IssuesFile)
	cache := filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache")
	st, err := tasks.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var defers []time.Time
	for _, iss := range st.Issues() {
		if !iss.DeferUntil.IsZero() {
			defers = append(defers, iss.DeferUntil)
		}
	}
	if len(defers) < 2 {
		t.Fatalf("the generated graph has %d deferred issues; the test needs some", len(defers))
	}
	slices.SortFunc(defers, time.Time.Compare)
	times := []time.Time{now0, now0.Add(time.Second)}
	for _, d := range defers {
		times = append(times, d.Add(-time.Nanosecond), d, d.Add(time.Hour))
	}
	for _, now := range append(times, times...) { // the second pass reads the files the first left
		settle(t, ws)
		s, err := loadSummary(issues, cache, now)
		if err != nil {
			t.Fatal(err)
		}
		want, total := tasks.NewGraph(st).Ready(tasks.ReadyFilter{Limit: ReadyLimit, Sort: tasks.SortPriority}, now)
		var wantIDs []string
		for _, iss := range want {
			wantIDs = append(wantIDs, iss.ID)
		}
		if got := readyIDs(s.Ready); !slices.Equal(got, append([]string{}, wantIDs...)) || s.ReadyTotal != total {
			t.Fatalf("at %s: ready %v (%d), want %v (%d)", now, got, s.ReadyTotal, wantIDs, total)
		}
	}
}

// TestSummaryFollowsTheFile: a change of the issues file is seen, and a
// pinned task is found in the index.
func TestSummaryFollowsTheFile(t *testing.T) {
	line := func(id, title, status, assignee, notes string) string {
		return fmt.Sprintf(`{"id":%q,"title":%q,"status":%q,"assignee":%q,"notes":%q,"priority":1,"created_at":"2026-11-01T00:00:00Z"}`+"\n",
			id, title, status, assignee, notes)
	}
	ws := testWorkspace(t, map[string]string{config.IssuesFile: line("app-1", "One", "in_progress", "ann", "did a\ndid b\n")})
	issues := ws.Path(config.IssuesFile)
	cache := filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache")
	s, err := loadSummary(issues, cache, now0)
	if err != nil || len(s.InProgress) != 1 || s.InProgress[0].Note != "did b" {
		t.Fatalf("first: %+v, %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Repo.GitDir, "memctl", "prime-tasks.cache")); err != nil {
		t.Fatalf("no summary file: %v", err)
	}
	// Rewritten (a new inode, as every memctl write and git checkout makes).
	tmp := issues + ".new"
	content := line("app-1", "One", "blocked", "ann", "") + line("app-2", "Two", "open", "", "")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, issues); err != nil {
		t.Fatal(err)
	}
	s, err = loadSummary(issues, cache, now0)
	if err != nil || len(s.InProgress) != 0 || !slices.Equal(readyIDs(s.Ready), []string{"app-2"}) {
		t.Fatalf("after the change: %+v, %v", s, err)
	}
	settle(t, ws)
	s, err = loadSummary(issues, cache, now0) // from the file
	if err != nil || !s.cached || s.index != nil {
		t.Fatalf("second read: index %v, %v", s.index != nil, err)
	}
	status, title, ok, err := s.lookup("app-1")
	if err != nil || !ok || status != "blocked" || title != "One" {
		t.Errorf("lookup app-1 = %q %q %v %v", status, title, ok, err)
	}
	if _, _, ok, _ := s.lookup("app-"); ok {
		t.Error("lookup of a prefix of an id found it")
	}
}

func TestLatestNote(t *testing.T) {
	st, err := tasks.Parse([]byte(`{"id":"a-1","title":"t","notes":"first\n\nlast line\n"}
{"id":"a-2","title":"t","comments":[{"id":1,"text":"older","created_at":"2026-11-01T00:00:00Z"},{"id":2,"text":"newer\ncomment","created_at":"2026-11-02T00:00:00Z"}]}
{"id":"a-3","title":"t","notes":"` + strings.Repeat("x", 300) + `"}
`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"a-1": "last line", "a-2": "newer comment", "a-3": strings.Repeat("x", maxNote-1) + "…"} {
		iss, _ := st.Get(id)
		if got := latestNote(st, iss); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
}

// TestBuildMaxChars: the text fits a hook's limit, cut by the same rule.
func TestBuildMaxChars(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Architecture\n\n")
	for i := range 200 {
		fmt.Fprintf(&b, "- Architecture fact number %d: the index is a cache, rebuilt from files.\n", i)
	}
	ws := testWorkspace(t, map[string]string{
		".ledger/facts/architecture.md": b.String(),
		".ledger/facts/invariants.md":   "# Invariants\n\n- Never commit the index.\n",
	})
	full := Build(context.Background(), ws, Options{BudgetTokens: 100000, Now: now0})
	if n := len(full.Text()); n < 10000 {
		t.Fatalf("the full pack is only %d bytes", n)
	}
	p := Build(context.Background(), ws, Options{MaxChars: 2000, Now: now0})
	text := p.Text()
	if len(text) > 2000 || p.BudgetTokens != 500 || p.Tokens > 500 {
		t.Fatalf("%d bytes, budget %d, %d tokens", len(text), p.BudgetTokens, p.Tokens)
	}
	if !strings.Contains(text, "Never commit the index.") || !strings.Contains(text, "more facts left out: memctl facts") {
		t.Errorf("the invariant first, and the hint:\n%s", text)
	}
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
}

// TestBuildDisabled: [prime] enabled = false gives an empty pack.
func TestBuildDisabled(t *testing.T) {
	ws := testWorkspace(t, map[string]string{".ledger/facts/invariants.md": "# Invariants\n\n- A fact.\n"})
	ws.Config.Prime.Enabled = false
	p := Build(context.Background(), ws, Options{Now: now0})
	if !p.Disabled || p.Text() != "" || len(p.Sections) != 0 {
		t.Errorf("got %+v", p)
	}
}

// TestBuildNoRunsDirectory: runs on, no .ledger/runs yet, git asked about
// nothing: an empty pack, no problem.
func TestBuildNoRunsDirectory(t *testing.T) {
	ws := testWorkspace(t, map[string]string{".ledger/facts/invariants.md": "# Invariants\n\n- A fact.\n"})
	ws.Config.Runs.Enabled = true
	p := Build(context.Background(), ws, Options{Now: now0, Branch: "main",
		Runs: runs.Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir, Cache: filepath.Join(ws.Repo.GitDir, "memctl", "runs.cache")}})
	if !strings.Contains(p.Text(), "A fact.") || len(p.Problems) != 0 {
		t.Errorf("got %q, %v", p.Text(), p.Problems)
	}
}

// TestSafely: a panic in one part's goroutine becomes that part's problem
// (a hook or the MCP server must not die of it), and the process goes on.
func TestSafely(t *testing.T) {
	g := &gathered{}
	g.safely(partPins, func() { panic("boom") })
	got := g.problems()
	if len(got) != 1 || got[0].Part != "pins" || !strings.Contains(got[0].Message, "internal error: boom") {
		t.Fatalf("problems = %+v, want one pins problem naming the panic", got)
	}
	g.safely(partTasks, func() {})
	if len(g.problems()) != 1 {
		t.Errorf("a part that reads cleanly added a problem: %+v", g.problems())
	}
}
