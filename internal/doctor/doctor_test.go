package doctor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/app/apptest"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/recall"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testEnv() Env {
	return Env{
		Embedder: func(*config.Workspace) (embed.Embedder, error) { return embed.NewStatic(embed.Corpus{}), nil },
		Sources:  func(*config.Workspace) []index.Source { return recall.Sources() },
		IndexDir: func(ws *config.Workspace) string { return filepath.Join(ws.Repo.CommonDir, "memctl") },
		Lock: func(ctx context.Context, ws *config.Workspace) (*fsx.Lock, error) {
			return fsx.Acquire(ctx, ws.LockPath(), time.Second)
		},
	}
}

func find(t *testing.T, root string) *gitx.Repo {
	t.Helper()
	repo, err := gitx.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func run(t *testing.T, root string, env Env, fix bool) *Report {
	t.Helper()
	r, err := Run(context.Background(), find(t, root), env, Options{Now: now, Fix: fix})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// only returns the checks of id whose file is file ("" for any).
func only(r *Report, id, file string) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.ID == id && (file == "" || c.File == file) {
			out = append(out, c)
		}
	}
	return out
}

func one(t *testing.T, r *Report, id, file string) Check {
	t.Helper()
	cs := only(r, id, file)
	if len(cs) != 1 {
		t.Fatalf("%d checks %s %q, want 1: %+v", len(cs), id, file, r.Checks)
	}
	return cs[0]
}

func read(t *testing.T, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestNoLedgerIsOneProblemAndNothingIsSetUp(t *testing.T) {
	root := apptest.Workspace(t, "")
	if err := os.RemoveAll(filepath.Join(root, ".ledger")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, config.AttrsFile))
	r := run(t, root, testEnv(), true)
	if c := one(t, r, IDWorkspace, ""); c.Status != Problem || !strings.Contains(c.Hint, "memctl init") {
		t.Fatalf("workspace check = %+v, want a problem that says memctl init", c)
	}
	if r.Healthy() || r.Count(Problem) != 1 {
		t.Fatalf("problems = %d, want 1: %+v", r.Count(Problem), r.Checks)
	}
	for _, id := range []string{IDMergeDriver, IDAttributes, IDHooks, IDIndex} {
		if cs := only(r, id, ""); len(cs) > 0 {
			t.Errorf("without .ledger, %s is checked: %+v", id, cs)
		}
	}
	if _, err := os.Stat(filepath.Join(root, config.AttrsFile)); !os.IsNotExist(err) {
		t.Errorf("--fix without .ledger wrote .gitattributes")
	}
}

func TestBrokenConfigGoesOnWithTheDefaults(t *testing.T) {
	root := apptest.Workspace(t, "[facts]\nmax_lines = \"many\"\n")
	gitxtest.Write(t, root, config.IssuesFile, `{"id":"tk-1","title":"ok","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-01T10:00:00Z","updated_at":"2026-11-01T10:00:00Z"}`+"\n{broken\n")
	r := run(t, root, testEnv(), false)
	c := one(t, r, IDConfig, "")
	if c.Status != Problem || c.File != config.ConfigFile || c.Line != 2 || !strings.Contains(c.Message, "facts.max_lines") {
		t.Fatalf("config check = %+v, want a problem at %s:2 naming the key", c, config.ConfigFile)
	}
	// The other checks still ran, on the defaults.
	if c := one(t, r, IDIssues, ""); c.Status != Problem || c.Line != 2 || c.Rule != "issues-jsonl" {
		t.Fatalf("issues check = %+v, want a problem on line 2", c)
	}
	if c := one(t, r, IDFacts, ""); c.Status != OK || !strings.Contains(c.Message, "of 800 lines") {
		t.Fatalf("facts check = %+v, want ok against the default budget", c)
	}
}

func TestCheckFindingsBecomeChecksOfTheirPart(t *testing.T) {
	root := apptest.Workspace(t, "")
	gitxtest.Write(t, root, ".ledger/proposals/p-old0001.json",
		`{"schema_version":1,"id":"p-old0001","action":"add","category":"pitfalls","content":"x","reason":"y","status":"pending","created_at":"2026-11-01T10:00:00Z"}`)
	r := run(t, root, testEnv(), false)
	c := one(t, r, IDProposals, "")
	if c.Status != Warn || c.Rule != "proposal-stale" || c.File != ".ledger/proposals/p-old0001.json" {
		t.Fatalf("proposals check = %+v, want the stale proposal as a warning", c)
	}
	if c := one(t, r, IDAgentsBlock, ""); c.Status != Problem || !c.Fixable {
		t.Fatalf("agents-block = %+v, want a fixable problem (apptest writes no AGENTS.md)", c)
	}
}

func TestLayoutAttributesAgentsAndIgnoreAreRepairedOnce(t *testing.T) {
	root := apptest.Workspace(t, "")
	os.RemoveAll(filepath.Join(root, ".ledger", "playbooks"))
	gitxtest.Write(t, root, config.AttrsFile, "*.png binary") // no newline at the end
	gitxtest.Write(t, root, config.AgentsFile, "# Agents\n\nOur notes.\n")
	os.Remove(filepath.Join(root, ".beads", ".gitignore"))
	gitxtest.Write(t, root, ".ledger/.gitignore", "*.bak\n")

	r := run(t, root, testEnv(), true)
	for _, k := range []struct{ id, file string }{
		{IDWorkspace, ""}, {IDAttributes, config.AttrsFile}, {IDAgentsBlock, config.AgentsFile},
		{IDIgnore, ".ledger/.gitignore"}, {IDIgnore, ".beads/.gitignore"},
	} {
		c := one(t, r, k.id, k.file)
		if c.Status != OK || c.Fixed == "" {
			t.Errorf("%s %s after --fix = %+v, want ok and fixed", k.id, k.file, c)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, ".ledger", "playbooks")); err != nil || !fi.IsDir() {
		t.Errorf(".ledger/playbooks not made: %v", err)
	}
	if got := read(t, root, config.AttrsFile); got != "*.png binary\n"+config.AttrsLine+"\n" {
		t.Errorf(".gitattributes = %q", got)
	}
	backups := filepath.Join(root, ".git", "memctl", "backups")
	if got := read(t, backups, config.AttrsFile); got != "*.png binary" {
		t.Errorf("backup of .gitattributes = %q, want it as it was", got)
	}
	if got := read(t, root, config.AgentsFile); !strings.Contains(got, "Our notes.") || !strings.Contains(got, "memctl:begin") {
		t.Errorf("AGENTS.md = %q, want the notes kept and the block added", got)
	}
	if got := read(t, backups, config.AgentsFile); got != "# Agents\n\nOur notes.\n" {
		t.Errorf("backup of AGENTS.md = %q", got)
	}
	if got := read(t, root, ".ledger/.gitignore"); !strings.HasPrefix(got, "*.bak\n") || !strings.HasSuffix(got, "\n"+config.IgnoreLine+"\n") {
		t.Errorf(".ledger/.gitignore = %q, want the line added, the rest kept", got)
	}
	if got := read(t, backups, ".ledger/.gitignore"); got != "*.bak\n" {
		t.Errorf("backup of .ledger/.gitignore = %q", got)
	}
	// A second --fix finds nothing to do.
	r = run(t, root, testEnv(), true)
	if n := r.FixedCount(); n != 0 {
		t.Errorf("second --fix fixed %d: %+v", n, r.Checks)
	}
	// Broken again and fixed again: the first backup stays, the second
	// gets a number.
	gitxtest.Write(t, root, config.AttrsFile, "*.jpg binary")
	run(t, root, testEnv(), true)
	if got := read(t, backups, config.AttrsFile); got != "*.png binary" {
		t.Errorf("the first backup of .gitattributes became %q", got)
	}
	if got := read(t, backups, config.AttrsFile+".1"); got != "*.jpg binary" {
		t.Errorf("second backup of .gitattributes = %q", got)
	}
}

func TestBrokenAgentsBlockIsNotFixable(t *testing.T) {
	root := apptest.Workspace(t, "")
	gitxtest.Write(t, root, config.AgentsFile, "<!-- memctl:begin v3 -->\nhalf a block\n")
	r := run(t, root, testEnv(), true)
	c := one(t, r, IDAgentsBlock, "")
	if c.Status != Problem || c.Fixable || c.Fixed != "" {
		t.Fatalf("agents-block = %+v, want a problem --fix leaves to a person", c)
	}
	if got := read(t, root, config.AgentsFile); got != "<!-- memctl:begin v3 -->\nhalf a block\n" {
		t.Errorf("AGENTS.md changed: %q", got)
	}
}

func TestStaleHolderIsClearedLiveLockIsNot(t *testing.T) {
	root := apptest.Workspace(t, "")
	repo := find(t, root)
	lock := config.LockPath(repo)
	if _, err := fsx.MkdirAll(filepath.Dir(lock)); err != nil {
		t.Fatal(err)
	}
	gitxtest.Write(t, filepath.Dir(lock), "lock.holder", `{"pid":2147483646,"command":"memctl create","since":"2026-11-22T09:31:02Z"}`)
	r := run(t, root, testEnv(), false)
	c := one(t, r, IDLock, ".git/memctl/lock.holder")
	if c.Status != Problem || !c.Fixable || !strings.Contains(c.Message, "pid 2147483646") {
		t.Fatalf("lock check = %+v, want a fixable stale holder naming the pid", c)
	}
	r = run(t, root, testEnv(), true)
	if c := one(t, r, IDLock, ".git/memctl/lock.holder"); c.Status != OK || c.Fixed == "" {
		t.Fatalf("after --fix: %+v", c)
	}
	if _, err := os.Stat(lock + ".holder"); !os.IsNotExist(err) {
		t.Fatalf("the stale holder file is still there: %v", err)
	}

	// A held lock, long held, is a warning and stays held and announced.
	l, err := fsx.Acquire(context.Background(), lock, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := l.Announce(fsx.Holder{PID: os.Getpid(), Command: "memctl review", Since: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	r = run(t, root, testEnv(), false)
	if c := one(t, r, IDLock, ".git/memctl/lock"); c.Status != Warn || !strings.Contains(c.Message, "held by pid") || c.Fixable {
		t.Fatalf("held lock = %+v, want a warning naming the holder, not fixable", c)
	}
	if _, err := os.Stat(lock + ".holder"); err != nil {
		t.Fatalf("a live holder's file must stay: %v", err)
	}
}

func TestTempsAreMovedNotDeleted(t *testing.T) {
	root := apptest.Workspace(t, "")
	gitxtest.Write(t, root, ".beads/.issues.jsonl.tmp-42", "half")
	gitxtest.Write(t, root, ".ledger/proposals/.p-1.json.tmp-7", "half a proposal")
	gitxtest.Write(t, root, ".AGENTS.md.tmp-3", "half the block")
	gitxtest.Write(t, root, "src/.main.go.tmp-1", "not memctl's: left alone")
	gitxtest.Write(t, root, ".git/memctl/backups/.beads/.issues.jsonl.tmp-42", "an earlier one")
	r := run(t, root, testEnv(), false)
	if n := len(only(r, IDTempFiles, "")); n != 3 {
		t.Fatalf("%d temp-files checks, want 3: %+v", n, only(r, IDTempFiles, ""))
	}
	r = run(t, root, testEnv(), true)
	fixed := 0
	for _, c := range only(r, IDTempFiles, "") {
		if c.Fixed != "" {
			fixed++
		}
	}
	if fixed != 3 {
		t.Fatalf("fixed %d temporaries, want 3: %+v", fixed, only(r, IDTempFiles, ""))
	}
	backups := filepath.Join(root, ".git", "memctl", "backups")
	for rel, want := range map[string]string{
		".beads/.issues.jsonl.tmp-42":       "an earlier one",
		".beads/.issues.jsonl.tmp-42.1":     "half",
		".ledger/proposals/.p-1.json.tmp-7": "half a proposal",
		".AGENTS.md.tmp-3":                  "half the block",
	} {
		if got := read(t, backups, rel); got != want {
			t.Errorf("backup %s = %q, want %q", rel, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".beads", ".issues.jsonl.tmp-42")); !os.IsNotExist(err) {
		t.Errorf("the temporary is still in the tree")
	}
	if got := read(t, root, "src/.main.go.tmp-1"); got != "not memctl's: left alone" {
		t.Errorf("a file outside memctl's directories was touched")
	}
	if c := one(t, run(t, root, testEnv(), false), IDTempFiles, ""); c.Status != OK {
		t.Errorf("after --fix: %+v", c)
	}
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	root := apptest.Workspace(t, "")
	gitxtest.Write(t, root, ".ledger/facts/pitfalls.md", "# Pitfalls\n\n- Never cache the session token.\n")
	env := testEnv()
	ws := &config.Workspace{Repo: find(t, root), Root: root}
	dir := env.IndexDir(ws)
	x, err := index.Open(context.Background(), index.Options{Dir: dir, Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(context.Background(), root, recall.Sources()); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if c := one(t, run(t, root, env, false), IDIndex, ""); c.Status != OK {
		t.Fatalf("a sound index: %+v", c)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.db"), []byte("this is not a database, whatever its name says"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := one(t, run(t, root, env, false), IDIndex, "")
	if c.Status != Problem || !c.Fixable || !strings.Contains(c.Message, "damaged") {
		t.Fatalf("a damaged index: %+v, want a fixable problem", c)
	}
	c = one(t, run(t, root, env, true), IDIndex, "")
	if c.Status != OK || !strings.Contains(c.Fixed, "rebuilt") {
		t.Fatalf("after --fix: %+v", c)
	}
	if h, err := index.Verify(context.Background(), dir); err != nil || h.Damage != "" || h.Docs == 0 {
		t.Fatalf("the rebuilt index: %+v, %v", h, err)
	}
}

func TestHTTPEmbedderIsProbed(t *testing.T) {
	root := apptest.Workspace(t, "")
	inner := embed.NewStatic(embed.Corpus{})
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vs, _ := inner.Embed(r.Context(), []string{"x"})
		json.NewEncoder(w).Encode(map[string]any{"embeddings": vs})
	}))
	defer ok.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "loading", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hang)
	for _, c := range []struct {
		name, url string
		want      Status
		says      string
	}{
		{"a server that answers", ok.URL, OK, "answers"},
		{"a server that fails", failing.URL, Problem, "HTTP 503"},
		{"a server that does not answer in time", slow.URL, Problem, "no answer within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv()
			env.Embedder = func(*config.Workspace) (embed.Embedder, error) {
				return embed.NewHTTP(embed.HTTPConfig{Provider: "ollama", URL: c.url, Model: "m"})
			}
			r, err := Run(context.Background(), find(t, root), env, Options{Now: now, ProbeTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			got := one(t, r, IDEmbedder, "")
			if got.Status != c.want || !strings.Contains(got.Message, c.says) {
				t.Fatalf("embedder check = %+v, want %s saying %q", got, c.want, c.says)
			}
		})
	}
}

func TestProblemsComeFirst(t *testing.T) {
	root := apptest.Workspace(t, "")
	r := run(t, root, testEnv(), false)
	rank := map[Status]int{Problem: 0, Warn: 1, OK: 2}
	for i := 1; i < len(r.Checks); i++ {
		if rank[r.Checks[i-1].Status] > rank[r.Checks[i].Status] {
			t.Fatalf("check %d (%s) after %d (%s)", i, r.Checks[i].Status, i-1, r.Checks[i-1].Status)
		}
	}
}
