package check

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/memctl/memctl/internal/agents"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets/secretstest"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// workspace writes files (slash paths relative to the root) and returns a
// workspace over them with cfg.
func workspace(t testing.TB, cfg config.Config, files map[string]string) *config.Workspace {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &config.Workspace{Root: root, Config: cfg}
}

func rules(r *Report) string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %s:%d", f.Rule, f.File, f.Line))
	}
	return strings.Join(out, "\n")
}

func TestRun(t *testing.T) {
	t.Parallel()
	cfg := config.Default("t")
	cfg.Facts.MaxLines, cfg.Facts.MaxFileLines = 10, 6
	ws := workspace(t, cfg, map[string]string{
		"AGENTS.md":                  agents.Block(),
		".ledger/facts/a.md":         "# A\n\n- one\n- two\n",
		".ledger/facts/b.md":         "# B\n\n- 1\n- 2\n- 3\n- 4\n- 5\n",
		".ledger/proposals/ok.json":  `{"schema_version":1,"id":"ok","action":"add","category":"pitfalls","content":"x","reason":"y","status":"pending","created_at":"2026-11-20T00:00:00Z"}`,
		".ledger/proposals/bad.json": `{"id":`,
		".beads/issues.jsonl":        "{\"id\":\"x-1\",\"title\":\"t\"}\n{\"id\":\"x-2\"}\n",
	})
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"issues-jsonl .beads/issues.jsonl:2",
		"facts-budget .ledger/facts/b.md:0",
		"facts-file-budget .ledger/facts/b.md:7",
		"proposal-json .ledger/proposals/bad.json:1",
	}, "\n")
	if got := rules(r); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if r.Facts != 7 || r.Lines != 11 || r.Proposals != 2 || r.Issues != 2 || r.Errors() != 4 {
		t.Errorf("summary = %+v", r)
	}
}

func TestRunByteBudgetsAndFactLength(t *testing.T) {
	t.Parallel()
	cfg := config.Default("t")
	cfg.Facts.MaxTotalBytes, cfg.Facts.MaxFileBytes, cfg.Facts.MaxFactChars = 300, 100, 50
	long := strings.Repeat("é", 60) // 60 characters, 120 bytes: chars, not bytes, are limited
	facts := map[string]string{
		".ledger/facts/a.md": "# A\n\n- one\n- two\n",
		// One long line: the line budget cannot see it. Byte 100 is on line 3.
		".ledger/facts/b.md": "# B\n\n- " + long + "\n- " + strings.Repeat("x", 40) + "\n",
		".ledger/facts/c.md": "# C\n\n- " + strings.Repeat("y", 49) + "\n- " + strings.Repeat("z", 20) + "\n",
	}
	total := 0
	for _, body := range facts {
		total += len(body)
	}
	facts["AGENTS.md"] = agents.Block()
	ws := workspace(t, cfg, facts)
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"facts-file-bytes .ledger/facts/b.md:3",
		"facts-fact-length .ledger/facts/b.md:3",
	}, "\n")
	if got := rules(r); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if r.Errors() != 1 || r.Warnings() != 1 || r.Bytes != total || r.MaxBytes != 300 {
		t.Errorf("errors %d, warnings %d, bytes %d", r.Errors(), r.Warnings(), r.Bytes)
	}

	cfg.Facts.MaxTotalBytes = 200
	ws.Config = cfg
	r, err = Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(r); !strings.Contains(got, "facts-bytes .ledger/facts/b.md:0") {
		t.Errorf("no total byte budget finding naming the largest file:\n%s", got)
	}
}

func TestRunDisabledLayersAreSkipped(t *testing.T) {
	t.Parallel()
	cfg := config.Default("t")
	cfg.Facts.Enabled, cfg.Tasks.Enabled = false, false
	ws := workspace(t, cfg, map[string]string{
		"AGENTS.md":                  agents.Block(),
		".ledger/facts/a.md":         "-\n",
		".ledger/proposals/bad.json": `[`,
		".beads/issues.jsonl":        "nonsense\n",
	})
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings in disabled layers: %s", rules(r))
	}
}

// benchWorkspace is the workspace of the check target: 1,000 proposal files,
// a 10,000-line issues.jsonl and about 800 lines of facts. Set
// MEMCTL_BENCH_ISSUES to an issues.jsonl (e.g. one made by
// shared/bench/beads/gen_beads_jsonl.py) to check that file instead.
func benchWorkspace(b *testing.B) *config.Workspace {
	r := rand.New(rand.NewPCG(1, 2))
	files := map[string]string{"AGENTS.md": agents.Block()}
	for i := range 1000 {
		files[fmt.Sprintf(".ledger/proposals/p%04d.json", i)] = fmt.Sprintf(`{
  "schema_version": 1,
  "id": "p%04d",
  "action": "add",
  "category": "pitfalls",
  "content": "Proposal number %d: keep the ready queue sorted by priority, then age.",
  "reason": "seen in run %d",
  "status": "pending",
  "created_at": "2026-11-20T00:00:00Z"
}
`, i, i, r.IntN(1000))
	}
	issues := taskstest.JSONL(r, 10_000)
	if p := os.Getenv("MEMCTL_BENCH_ISSUES"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		issues = data
	}
	files[".beads/issues.jsonl"] = string(issues)
	for _, cat := range []string{"architecture", "invariants", "performance_rules", "pitfalls", "preferences"} {
		var f strings.Builder
		f.WriteString("# " + cat + "\n\n")
		for i := range 155 {
			fmt.Fprintf(&f, "- %s fact %d: the index is a cache, rebuilt from files; never commit it.\n", cat, i)
		}
		files[".ledger/facts/"+cat+".md"] = f.String()
	}
	return workspace(b, config.Default("bench"), files)
}

func BenchmarkCheck1kProposals10kIssues(b *testing.B) {
	ws := benchWorkspace(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Run(b.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		if r.Errors() != 0 || r.Proposals != 1000 || r.Issues != 10_000 {
			b.Fatalf("unexpected report: %d errors, %d proposals, %d issues: %s", r.Errors(), r.Proposals, r.Issues, rules(r))
		}
	}
}

func TestRunFindsConflictMarkers(t *testing.T) {
	t.Parallel()
	ws := workspace(t, config.Default("t"), map[string]string{
		"AGENTS.md":               agents.Block(),
		".ledger/facts/a.md":      "# A\n\n<<<<<<< HEAD\n- ours\n=======\n- theirs\n>>>>>>> feature\n",
		".ledger/playbooks/p.md":  "# Deploy\n=======\nsteps\n",
		".ledger/runs/r.md":       "ok\n>>>>>>> stray\n",
		".ledger/facts/setext.md": "# S\n\nHeading\n=======\n",
		".beads/issues.jsonl":     "",
		".ledger/proposals/.keep": "",
		".ledger/facts/clean.md":  "# C\n\n- fine\n",
	})
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		if f.Rule == RuleConflictMarkers {
			got = append(got, fmt.Sprintf("%s:%d", f.File, f.Line))
		}
	}
	want := ".ledger/facts/a.md:3 .ledger/facts/a.md:5 .ledger/facts/a.md:7 .ledger/runs/r.md:2"
	if strings.Join(got, " ") != want {
		t.Errorf("conflict-marker findings = %v, want %s", got, want)
	}
}

// Conflict markers in run records are found when runs are enabled, whether
// facts are or not, and not when runs are off.
func TestConflictMarkersFollowTheirLayer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		facts, runs bool
		want        string
	}{
		{false, true, ".ledger/runs/r.md:2"},
		{true, false, ".ledger/facts/a.md:2"},
		{false, false, ""},
	} {
		cfg := config.Default("t")
		cfg.Facts.Enabled, cfg.Runs.Enabled = tc.facts, tc.runs
		ws := workspace(t, cfg, map[string]string{
			"AGENTS.md":           agents.Block(),
			".ledger/facts/a.md":  "# A\n>>>>>>> stray\n",
			".ledger/runs/r.md":   "ok\n>>>>>>> stray\n",
			".beads/issues.jsonl": "",
		})
		r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range r.Findings {
			if f.Rule == RuleConflictMarkers {
				got = append(got, fmt.Sprintf("%s:%d", f.File, f.Line))
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("facts %v, runs %v: conflict-marker findings = %v, want %q", tc.facts, tc.runs, got, tc.want)
		}
	}
}

func TestRunFindsUnmergedFiles(t *testing.T) {
	t.Parallel()
	ws := workspace(t, config.Default("t"), map[string]string{
		"AGENTS.md":           agents.Block(),
		".beads/issues.jsonl": "{\"id\":\"x-1\",\"title\":\"ours only, no markers\"}\n",
	})
	repo, err := git.PlainInit(ws.Root, false)
	if err != nil {
		t.Fatal(err)
	}
	ws.Repo = &gitx.Repo{Root: ws.Root, GitDir: filepath.Join(ws.Root, ".git"), CommonDir: filepath.Join(ws.Root, ".git")}
	idx := &index.Index{Version: 2}
	for _, path := range []string{".beads/issues.jsonl", ".ledger/facts/a.md", "src/main.go"} {
		for stage := index.AncestorMode; stage <= index.TheirMode; stage++ {
			idx.Entries = append(idx.Entries, &index.Entry{Name: path, Mode: filemode.Regular, Stage: stage,
				Hash: plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")})
		}
	}
	if err := repo.Storer.SetIndex(idx); err != nil {
		t.Fatal(err)
	}
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := "unmerged .beads/issues.jsonl:0\nunmerged .ledger/facts/a.md:0"
	if got := rules(r); got != want {
		t.Errorf("findings:\n%s\nwant (not src/main.go, which is not memctl's):\n%s", got, want)
	}
	if r.Errors() != 2 {
		t.Errorf("Errors() = %d, want 2", r.Errors())
	}
}

// TestRunFindsSecretsAndControlCharacters: what the write gate refuses,
// added by hand, is a finding: a secret (an error, naming the rule and the
// column, never the secret) in a facts file, issues.jsonl or a proposal;
// a control character (a warning, naming the fact or field) in a facts
// file or an issue's text.
func TestRunFindsSecretsAndControlCharacters(t *testing.T) {
	t.Parallel()
	token := secretstest.Secrets()[0].Text   // export GITHUB_TOKEN=ghp_…
	generic := secretstest.Secrets()[5].Text // api_key = "…"
	ws := workspace(t, config.Default("t"), map[string]string{
		"AGENTS.md":          agents.Block(),
		".ledger/facts/a.md": "# A\n\n- one\n- CI: " + token + "\n- red \x1b[31m text <!-- id:red -->\n",
		".ledger/proposals/p-1.json": `{"schema_version":1,"id":"p-1","action":"add","category":"a",` +
			"\n" + `"content":"` + token + `","reason":"y","status":"pending","created_at":"2026-11-20T00:00:00Z"}`,
		// The quotes of the generic sample are escaped in the file.
		".ledger/proposals/p-2.json": "{\n  \"schema_version\": 1,\n  \"id\": \"p-2\",\n  \"action\": \"add\",\n  \"category\": \"a\",\n" +
			"  \"content\": " + quote(t, generic) + ",\n  \"reason\": \"y\",\n  \"status\": \"pending\",\n  \"created_at\": \"2026-11-20T00:00:00Z\"\n}\n",
		".beads/issues.jsonl": `{"id":"x-1","title":"t","comments":[{"author":"codex-agent","text":"` + token + `"}]}` + "\n" +
			`{"id":"x-2","title":"a \u202e b","description":"ok \u001b"}` + "\n" +
			`{"id":"x-3","title":"café — \u00e9 \\u001b","notes":"line\nline\ttab\r\n"}` + "\n" +
			"{\"id\":\"x-4\",\"title\":\"raw \u202e and \u0085\"}\n",
	})
	r, err := Run(t.Context(), ws, Options{Now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"secret .beads/issues.jsonl:1",
		"control-character .beads/issues.jsonl:2",
		"control-character .beads/issues.jsonl:2",
		"control-character .beads/issues.jsonl:4",
		"secret .ledger/facts/a.md:4",
		"control-character .ledger/facts/a.md:5",
		"secret .ledger/proposals/p-1.json:2",
		"secret .ledger/proposals/p-2.json:6",
	}, "\n")
	if got := rules(r); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "ghp_") || strings.Contains(f.Hint, "ghp_") {
			t.Errorf("finding %+v shows the secret", f)
		}
	}
	msgs := []string{r.Findings[0].Message, r.Findings[1].Message, r.Findings[2].Message, r.Findings[5].Message}
	for i, want := range []string{"(github-pat) at column 89", `field "description" has an escape character`, `field "title" has the bidirectional formatting character U+202E`, "fact red has an escape character"} {
		if !strings.Contains(msgs[i], want) {
			t.Errorf("message %q, want it to contain %q", msgs[i], want)
		}
	}
	if r.Errors() != 4 || r.Warnings() != 4 {
		t.Errorf("%d errors, %d warnings; want 4 and 4", r.Errors(), r.Warnings())
	}
}

func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
