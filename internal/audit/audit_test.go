package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// repo is a git repository a test commits into, one commit a minute from
// a fixed time.
type repo struct {
	t    *testing.T
	root string
	r    *git.Repository
	n    int
}

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func newRepo(t *testing.T) *repo {
	t.Helper()
	root := t.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	return &repo{t: t, root: root, r: r}
}

func (g *repo) write(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *repo) remove(rel string) {
	g.t.Helper()
	if err := os.Remove(filepath.Join(g.root, filepath.FromSlash(rel))); err != nil {
		g.t.Fatal(err)
	}
}

// commit commits the whole working tree as who, with parents beyond HEAD
// for a merge; it returns the commit's hash.
func (g *repo) commit(who string, merge ...plumbing.Hash) plumbing.Hash {
	g.t.Helper()
	wt, err := g.r.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		g.t.Fatal(err)
	}
	g.n++
	sig := &object.Signature{Name: who, Email: strings.ToLower(who) + "@example.com", When: t0.Add(time.Duration(g.n) * time.Minute)}
	opts := &git.CommitOptions{Author: sig, Committer: sig, All: true, AllowEmptyCommits: true}
	if len(merge) > 0 {
		head, err := g.r.Head()
		if err != nil {
			g.t.Fatal(err)
		}
		opts.Parents = append([]plumbing.Hash{head.Hash()}, merge...)
	}
	h, err := wt.Commit(fmt.Sprintf("commit %d", g.n), opts)
	if err != nil {
		g.t.Fatal(err)
	}
	return h
}

func (g *repo) log(q Query) (*Result, error) {
	g.t.Helper()
	r, err := gitx.Find(g.root)
	if err != nil {
		g.t.Fatal(err)
	}
	return Log(context.Background(), r, q, func(rel string) bool {
		_, err := os.Stat(filepath.Join(g.root, filepath.FromSlash(rel)))
		return err == nil
	})
}

// summaries runs the log and returns each entry as "who: summary".
func (g *repo) summaries(q Query) []string {
	g.t.Helper()
	res, err := g.log(q)
	if err != nil {
		g.t.Fatal(err)
	}
	out := []string{}
	for _, e := range res.Entries {
		out = append(out, e.AuthorName+": "+e.Summary())
	}
	return out
}

func issue(id, title, status string, extra string) string {
	closed := ""
	if status == "closed" {
		closed = `,"closed_at":"2026-03-01T11:00:00Z"`
	}
	return fmt.Sprintf(`{"id":%q,"title":%q,"status":%q,"priority":2,"issue_type":"task","created_at":"2026-03-01T10:00:00Z","updated_at":"2026-03-01T10:00:00Z"%s%s}`+"\n", id, title, status, closed, extra)
}

const comment = `,"comments":[{"id":1,"issue_id":"tk-1","author":"ann","text":"done","created_at":"2026-03-01T11:00:00Z"}]`

func check(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestTasksInMemctlTerms(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "Fix the parser", "open", "")+issue("tk-2", "Wire the CLI", "open", ""))
	g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-1", "Fix the parser", "closed", comment)+issue("tk-2", "Wire the CLI", "open", ""))
	g.commit("Bob")
	g.write(".beads/issues.jsonl", issue("tk-1", "Fix the parser", "closed", comment)+issue("tk-2", "Wire the command line", "open", `,"labels":["cli"]`)+issue("tk-3", "New", "in_progress", ""))
	g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-2", "Wire the command line", "open", `,"labels":["cli"]`)+issue("tk-3", "New", "in_progress", ""))
	g.commit("Cy")
	check(t, g.summaries(Query{}), []string{
		"Cy: task tk-1 removed: Fix the parser",
		"Ann: task tk-2 updated (title changed, labels +cli): Wire the command line",
		"Ann: task tk-3 created (in_progress): New",
		"Bob: task tk-1 updated (status open→closed, commented): Fix the parser",
		"Ann: task tk-1 created: Fix the parser",
		"Ann: task tk-2 created: Wire the CLI",
	})
	check(t, g.summaries(Query{ID: "tk-1"}), []string{
		"Cy: task tk-1 removed: Fix the parser",
		"Bob: task tk-1 updated (status open→closed, commented): Fix the parser",
		"Ann: task tk-1 created: Fix the parser",
	})
	check(t, g.summaries(Query{Author: "BOB@"}), []string{
		"Bob: task tk-1 updated (status open→closed, commented): Fix the parser",
	})
	check(t, g.summaries(Query{Limit: 2}), []string{
		"Cy: task tk-1 removed: Fix the parser",
		"Ann: task tk-2 updated (title changed, labels +cli): Wire the command line",
	})
	check(t, g.summaries(Query{Since: t0.Add(3 * time.Minute)}), []string{
		"Cy: task tk-1 removed: Fix the parser",
		"Ann: task tk-2 updated (title changed, labels +cli): Wire the command line",
		"Ann: task tk-3 created (in_progress): New",
	})
}

func TestReformattedLineIsNoChange(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.commit("Ann")
	spaced := strings.ReplaceAll(issue("tk-1", "A", "open", ""), `,"`, `, "`)
	g.write(".beads/issues.jsonl", strings.TrimSuffix(spaced, "\n")+"\r\n")
	g.commit("Bob")
	check(t, g.summaries(Query{}), []string{"Ann: task tk-1 created: A"})
}

func TestUnreadableIssuesFileIsAFileChange(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", "")+"<<<<<<< HEAD\n")
	g.commit("Bob")
	got := g.summaries(Query{})
	if len(got) != 2 || !strings.HasPrefix(got[0], "Bob: file .beads/issues.jsonl changed (unreadable: line 1:") {
		t.Errorf("log: %q; want Bob's change first, as an unreadable file", got)
	}
}

const facts = "# Pitfalls\n\n"

func TestFactsAddedEditedRemoved(t *testing.T) {
	g := newRepo(t)
	g.write(".ledger/facts/pitfalls.md", facts)
	g.commit("Ann")
	g.write(".ledger/facts/pitfalls.md", facts+"- Port 7070 is shared. <!-- id:port -->\n- Derived one.\n")
	g.commit("Ann")
	g.write(".ledger/facts/pitfalls.md", facts+"- Port 7071 is shared. <!-- id:port -->\n- Derived one, reworded.\n")
	g.commit("Bob")
	g.write(".ledger/facts/pitfalls.md", facts+"- Derived one, reworded.\n")
	g.commit("Cy")
	res, err := g.log(Query{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, fmt.Sprintf("%s %s %s %s %v", e.AuthorName, e.Kind, e.Action, e.Text, e.Details))
	}
	check(t, got, []string{
		"Cy fact removed Port 7071 is shared. []",
		"Bob fact edited Port 7071 is shared. []",
		"Bob fact edited Derived one, reworded. [id f-zo0telg→f-lerss4q]",
		"Ann fact added Port 7070 is shared. []",
		"Ann fact added Derived one. []",
		"Ann file added  []",
	})
	// A derived id changed by an edit is followed back to the fact's first id.
	derived := res.Entries[2].ID
	check(t, g.summaries(Query{ID: derived}), []string{
		"Bob: fact " + derived + " edited in pitfalls (id f-zo0telg→" + derived + "): Derived one, reworded.",
		"Ann: fact f-zo0telg added in pitfalls: Derived one.",
	})
}

const proposalFiled = `{"schema_version":1,"id":"p-1","kind":"fact","action":"add","category":"pitfalls","fact_id":"","content":"Port 7070 is shared.","reason":"r","evidence":[],"author":"agent","created_at":"2026-03-01T10:00:00Z","status":"pending","reviewer":"","reviewed_at":null,"feedback":"","similar":[],"over_budget":false,"applied_fact_id":"","history":[]}`

func TestProposalFollowedIntoItsFact(t *testing.T) {
	g := newRepo(t)
	g.write(".ledger/facts/pitfalls.md", facts)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.commit("Ann")
	g.write(".ledger/proposals/p-1.json", proposalFiled)
	g.commit("Agent")
	approved := strings.Replace(strings.Replace(strings.Replace(proposalFiled, `"status":"pending"`, `"status":"approved"`, 1),
		`"reviewer":""`, `"reviewer":"Bob"`, 1), `"applied_fact_id":""`, `"applied_fact_id":"port"`, 1)
	g.write(".ledger/proposals/p-1.json", approved)
	g.write(".ledger/facts/pitfalls.md", facts+"- Port 7070 is shared. <!-- id:port -->\n")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "closed", ""))
	g.commit("Bob")
	g.write(".ledger/facts/pitfalls.md", facts+"- Port 7071 is shared. <!-- id:port -->\n")
	g.commit("Cy")
	want := []string{
		"Bob: fact port added in pitfalls: Port 7070 is shared.",
		"Bob: proposal p-1 approved (by Bob, as fact port): Port 7070 is shared.",
		"Agent: proposal p-1 filed (add to pitfalls): Port 7070 is shared.",
	}
	check(t, g.summaries(Query{ID: "p-1"}), want)
	check(t, g.summaries(Query{ID: "port"}), append([]string{"Cy: fact port edited in pitfalls: Port 7071 is shared."}, want...))
	check(t, g.summaries(Query{Path: ".ledger/proposals"}), want[1:])
}

func TestRunsPlaybooksConfig(t *testing.T) {
	g := newRepo(t)
	g.write(".ledger/config.toml", "")
	g.write(".ledger/runs/2026-03/r-abc.json", `{"schema_version":1,"run_id":"r-abc","status":"failure","digest":{"intent":"Fix the flaky test"}}`)
	g.write(".ledger/playbooks/0123456789ab.md", "# Playbook 0123456789ab\n\n## Error\n\n```text\nlisten tcp :<n>: address already in use\n```\n")
	g.commit("Ann")
	g.write(".ledger/config.toml", "[runs]\n")
	g.remove(".ledger/runs/2026-03/r-abc.json")
	g.commit("Bob")
	check(t, g.summaries(Query{}), []string{
		"Bob: config changed",
		"Bob: run r-abc removed: Fix the flaky test",
		"Ann: config added",
		"Ann: playbook 0123456789ab added: listen tcp :<n>: address already in use",
		"Ann: run r-abc recorded (failure): Fix the flaky test",
	})
}

func TestMergeIsComparedWithItsFirstParent(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	base := g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", "")+issue("tk-2", "B", "open", ""))
	side := g.commit("Bob") // on a side branch: reset main back to base below
	if err := g.r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("master"), base)); err != nil {
		t.Fatal(err)
	}
	wt, _ := g.r.Worktree()
	if err := wt.Reset(&git.ResetOptions{Commit: base, Mode: git.HardReset}); err != nil {
		t.Fatal(err)
	}
	g.write(".ledger/config.toml", "")
	g.commit("Cy")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", "")+issue("tk-2", "B", "open", ""))
	g.commit("Dee", side)
	res, err := g.log(Query{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, fmt.Sprintf("%s %v %s", e.AuthorName, e.Merge, e.Summary()))
	}
	check(t, got, []string{"Dee true task tk-2 created: B", "Cy false config added", "Ann false task tk-1 created: A"})
}

func TestShallowCloneIsCut(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "closed", ""))
	cut := g.commit("Bob")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.commit("Cy")
	if err := os.WriteFile(filepath.Join(g.root, ".git", "shallow"), []byte(cut.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := g.log(Query{})
	if err != nil {
		t.Fatal(err)
	}
	if res.CutAt != cut.String() || len(res.Entries) != 1 || res.Entries[0].AuthorName != "Cy" {
		t.Errorf("cut at %q with %d entries; want cut at Bob's %s with Cy's entry only", res.CutAt, len(res.Entries), cut)
	}
}

func TestNotFoundAndEmpty(t *testing.T) {
	g := newRepo(t)
	res, err := g.log(Query{})
	if err != nil || len(res.Entries) != 0 {
		t.Fatalf("a repository with no commits: %v, %v; want an empty log", res, err)
	}
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.write(".ledger/facts/new.md", "")
	g.commit("Ann")
	g.write(".ledger/facts/later.md", "")
	for _, q := range []Query{{ID: "tk-9"}, {Path: ".ledger/facts/gone.md"}} {
		_, err := g.log(q)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) {
			t.Errorf("%+v: %v; want a *NotFoundError", q, err)
		}
	}
	// A file in the working tree that no commit has yet has an empty log.
	if res, err := g.log(Query{Path: ".ledger/facts/later.md"}); err != nil || len(res.Entries) != 0 {
		t.Errorf("uncommitted file: %v, %v; want an empty log", res, err)
	}
	// --since that ends the walk early cannot say an id is unknown.
	if res, err := g.log(Query{ID: "tk-9", Since: t0.Add(time.Hour)}); err != nil || len(res.Entries) != 0 {
		t.Errorf("id before --since: %v, %v; want an empty log", res, err)
	}
}

func TestChangedLines(t *testing.T) {
	for _, tc := range []struct{ name, before, after, gone, came string }{
		{"one line changed in the middle", "a\nb\nc\n", "a\nB\nc\n", "b\n", "B\n"},
		{"line added at the end", "a\nb\n", "a\nb\nc\n", "", "c\n"},
		{"common tail starting inside a line", "a\nxb\n", "a\nyb\n", "xb\n", "yb\n"},
		{"moved lines are not changes", "a\nb\nc\n", "c\na\nb\n", "", ""},
		{"repeated lines are counted", "a\na\n", "a\n", "a\n", ""},
		{"no final newline", "a\nb", "a\nc", "b\n", "c\n"},
		{"CRLF endings", "a\r\nb\r\n", "a\r\nc\r\n", "b\n", "c\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gone, came := changedLines([]byte(tc.before), []byte(tc.after))
			if string(gone) != tc.gone || string(came) != tc.came {
				t.Errorf("changedLines = %q, %q; want %q, %q", gone, came, tc.gone, tc.came)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	root := filepath.FromSlash("/repo")
	for _, tc := range []struct{ cwd, arg, path, id, err string }{
		{"/repo", "tk-1", "", "tk-1", ""},
		{"/repo", "bd-12.3", "", "bd-12.3", ""},
		{"/repo", ".ledger/facts/pitfalls.md", ".ledger/facts/pitfalls.md", "", ""},
		{"/repo/.ledger/facts", "pitfalls.md", ".ledger/facts/pitfalls.md", "", ""},
		{"/repo/.ledger", ".", ".ledger", "", ""},
		{"/repo", ".beads", ".beads/issues.jsonl", "", ""},
		{"/repo", "README.md", "", "", "README.md: not one of memctl's files"},
		{"/repo/src", "../../x/.ledger", "", "", "../../x/.ledger: outside the repository"},
	} {
		path, id, err := Target(root, filepath.FromSlash(tc.cwd), tc.arg)
		if path != tc.path || id != tc.id || (err == nil) != (tc.err == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("Target(%s, %s) = %q, %q, %v; want %q, %q, %q", tc.cwd, tc.arg, path, id, err, tc.path, tc.id, tc.err)
		}
	}
}

// removeBlobs deletes every blob of the test repository's object store,
// which go-git writes as loose objects.
func (g *repo) removeBlobs() {
	g.t.Helper()
	iter, err := g.r.BlobObjects()
	if err != nil {
		g.t.Fatal(err)
	}
	var hashes []string
	_ = iter.ForEach(func(b *object.Blob) error { hashes = append(hashes, b.Hash.String()); return nil })
	for _, h := range hashes {
		if err := os.Remove(filepath.Join(g.root, ".git", "objects", h[:2], h[2:])); err != nil {
			g.t.Fatal(err)
		}
	}
}

func TestCacheServesTheNextLog(t *testing.T) {
	g := newRepo(t)
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
	g.write(".ledger/facts/pitfalls.md", facts+"- One. <!-- id:one -->\n")
	g.commit("Ann")
	g.write(".beads/issues.jsonl", issue("tk-1", "A", "closed", ""))
	g.commit("Bob")
	first := g.summaries(Query{})
	if _, err := os.Stat(CachePath(filepath.Join(g.root, ".git"))); err != nil {
		t.Fatalf("no cache after a log: %v", err)
	}
	// Without a single blob, the commits compared before are named from
	// the cache, for every query.
	g.removeBlobs()
	check(t, g.summaries(Query{}), first)
	check(t, g.summaries(Query{ID: "tk-1"}), []string{first[0], first[1]})
	check(t, g.summaries(Query{Path: ".ledger/facts"}), first[2:])
}

func TestCacheOfAnotherVersionIsIgnored(t *testing.T) {
	for name, content := range map[string]string{
		"older version": `{"v":0}` + "\n",
		"broken line":   fmt.Sprintf(`{"v":%d}`, cacheVersion) + "\n{\"c\":\n",
	} {
		t.Run(name, func(t *testing.T) {
			g := newRepo(t)
			g.write(".beads/issues.jsonl", issue("tk-1", "A", "open", ""))
			h := g.commit("Ann")
			path := CachePath(filepath.Join(g.root, ".git"))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			// An entry for the very commit, which must not be used.
			stale := content + fmt.Sprintf(`{"c":%q,"e":[{"f":"x","k":"file","a":"stale"}]}`, h.String()) + "\n"
			if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, g.summaries(Query{}), []string{"Ann: task tk-1 created: A"})
			data, _ := os.ReadFile(path)
			if strings.Contains(string(data), "stale") || !strings.HasPrefix(string(data), fmt.Sprintf(`{"v":%d}`, cacheVersion)) {
				t.Errorf("cache not rewritten:\n%s", data)
			}
		})
	}
}

// A credential committed and removed since is still in git; the log
// shows where it was, never the credential.
func TestLogRedactsSecretsFromHistory(t *testing.T) {
	secret := secretstest.Secrets()[0]
	g := newRepo(t)
	g.write(".ledger/facts/pitfalls.md", facts+"- Deploy with "+secret.Text+"\n")
	g.commit("Ann")
	g.write(".ledger/facts/pitfalls.md", facts)
	g.commit("Bob")
	res, err := g.log(Query{})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range res.Entries {
		texts = append(texts, e.Text)
		if strings.Contains(e.Summary(), secret.Text) || strings.Contains(fmt.Sprint(e.Details), secret.Text) {
			t.Errorf("the log shows the secret: %s", e.Summary())
		}
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "[REDACTED:"+secret.Rule+"]") }) {
		t.Errorf("no entry names the redacted secret: %q", texts)
	}
}
