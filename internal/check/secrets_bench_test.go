package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// historyRepo makes a workspace whose git history has n commits, each
// changing what memctl writes in a working day: a line of issues.jsonl,
// a run record, and every tenth commit a fact. Commit n/3 adds a secret to
// a fact and commit 2n/3 takes it out again.
func historyRepo(tb testing.TB, n int) *config.Workspace {
	tb.Helper()
	root := tb.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		tb.Fatal(err)
	}
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	var issues, facts strings.Builder
	facts.WriteString("# Pitfalls\n\n")
	leak := secretstest.Secrets()[0].Text
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&issues, `{"id":"mc-%d","title":"Fix the auth token refresh in module %d","description":"The API key cache expires early. See design notes.","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`+"\n", i, i%97)
		paths := []string{config.IssuesFile}
		write(config.IssuesFile, issues.String())
		run := fmt.Sprintf("%s/2026-01/r-%04d.json", config.RunsDir, i)
		write(run, fmt.Sprintf("{\n  \"schema_version\": 1,\n  \"run_id\": \"r-%04d\",\n  \"digest\": {\"intent\": \"fix module %d\", \"gotchas\": [\"run the tests with -p 1\"]}\n}\n", i, i))
		paths = append(paths, run)
		if i%10 == 0 || i == n/3 || i == 2*n/3 {
			if i%10 == 0 {
				fmt.Fprintf(&facts, "- Module %d keeps its cache for 10 minutes.\n", i)
			}
			text := facts.String()
			if i >= n/3 && i < 2*n/3 {
				text += "- CI pushes with " + leak + "\n"
			}
			write(config.FactsDir+"/pitfalls.md", text)
			paths = append(paths, config.FactsDir+"/pitfalls.md")
		}
		if _, err := gitx.CommitFiles(root, paths, fmt.Sprintf("day %d", i), gitx.Signature{Name: "Ann", Email: "ann@example.com", When: at.Add(time.Duration(i) * time.Hour)}); err != nil {
			tb.Fatal(err)
		}
	}
	ws, err := config.Open(root)
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}

// BenchmarkSecretsHistory300 is memctl check --secrets --history on a
// repository of 300 commits of memctl files (about 600 distinct versions:
// an issues file growing to 300 lines, 300 run records, 30 versions of a
// facts file): 0.56 s an operation here on 2 busy cores (2.7 s when every
// version of the issues file was scanned whole).
func BenchmarkSecretsHistory300(b *testing.B) {
	ws := historyRepo(b, 300)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Secrets(context.Background(), ws, SecretsOptions{History: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Findings) != 1 || r.Commits != 300 {
			b.Fatalf("%d findings in %d commits, want 1 in 300", len(r.Findings), r.Commits)
		}
	}
}

func TestSecretsHistoryFindsARemovedSecretOnce(t *testing.T) {
	t.Parallel()
	ws := historyRepo(t, 30)
	r, err := Secrets(context.Background(), ws, SecretsOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Commits != 30 || r.Files == 0 {
		t.Errorf("walked %d commits, %d files; want 30 commits", r.Commits, r.Files)
	}
	if len(r.Findings) != 1 {
		t.Fatalf("findings %+v, want the one secret once", r.Findings)
	}
	f := r.Findings[0]
	if f.File != ".ledger/facts/pitfalls.md" || f.Rule != "github-pat" || f.Commit == nil || f.Remedy != RemedyHistory ||
		!f.Commit.When.Equal(time.Date(2026, 1, 1, 19, 0, 0, 0, time.UTC)) || f.Commit.Author != "Ann" {
		t.Errorf("finding %+v (commit %+v), want github-pat in pitfalls.md introduced by Ann's commit 10", f, f.Commit)
	}
	// Without --history the working tree is clean.
	r, err = Secrets(context.Background(), ws, SecretsOptions{})
	if err != nil || len(r.Findings) != 0 {
		t.Errorf("working tree: %+v, %v; want clean", r, err)
	}
	// Each distinct content is scanned once: 30 of the issues file, 30
	// run records, 3 of the facts file (commit 20 brings back commit 10's
	// content but one line), not a file per commit (some 500).
	if r, _ := Secrets(context.Background(), ws, SecretsOptions{History: true}); r.Versions != 30+30+3 {
		t.Errorf("%d versions scanned, want 63", r.Versions)
	}
}

// Content first committed at a path check --secrets does not scan, then
// moved to one it does, is scanned there: a blob is "seen" only where it
// is kept.
func TestSecretsHistoryFollowsContentMovedIntoAMemctlFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	line := `{"id":"mc-1","title":"t","description":"` + secretstest.Secrets()[0].Text + `","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}` + "\n"
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	step := func(i int, do func()) {
		do()
		if _, err := wt.Add("."); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "Ann", Email: "ann@example.com", When: at.Add(time.Duration(i) * time.Hour)}
		if _, err := wt.Commit(fmt.Sprint("step ", i), &git.CommitOptions{Author: sig, Committer: sig, All: true}); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step(1, func() {
		write(config.ConfigFile, "")
		write(".beads/bd-export.json", line)
	})
	step(2, func() {
		os.Remove(filepath.Join(root, ".beads", "bd-export.json"))
		write(config.IssuesFile, line)
	})
	step(3, func() { write(config.IssuesFile, "") })
	ws, err := config.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Secrets(context.Background(), ws, SecretsOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].File != config.IssuesFile {
		t.Fatalf("findings %+v, want the secret in %s, moved there in step 2", r.Findings, config.IssuesFile)
	}
}
