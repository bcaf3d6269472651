package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/app/apptest"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

var testNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// fixture is a workspace (git init, memctl's layout, the given
// config.toml) and a client connected to a server over it in memory.
type fixture struct {
	t    *testing.T
	root string
	home string
	env  map[string]string
	cs   *sdk.ClientSession
}

func newFixture(t *testing.T, configTOML string, extra ...func(*Server)) *fixture {
	t.Helper()
	root := apptest.Workspace(t, configTOML)
	// A home of its own: recall reads the personal preferences there.
	home := t.TempDir()
	f := &fixture{t: t, root: root, home: home, env: map[string]string{"MEMCTL_ACTOR": "agent-7", "HOME": home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config")}}
	s := New(Options{Dir: filepath.Join(root, ".ledger"), Getenv: func(k string) string { return f.env[k] },
		Now: func() time.Time { return testNow }, Rand: bytes.NewReader(bytes.Repeat([]byte{7, 1, 9, 3}, 4096)), PID: 42, Version: "test"})
	for _, add := range extra {
		add(s)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	f.cs, err = sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.cs.Close() })
	return f
}

// call calls tool and returns its text blocks joined and whether it was a
// tool error.
func (f *fixture) call(tool string, args map[string]any) (string, bool) {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.(*sdk.TextContent).Text)
	}
	return strings.Join(parts, "\n"), res.IsError
}

// ok calls tool, fails the test on a tool error, and decodes the first
// text block (the JSON answer) into v.
func (f *fixture) ok(tool string, args map[string]any, v any) {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", tool, err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		f.t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(text), v); err != nil {
			f.t.Fatalf("%s: %v\n%s", tool, err, text)
		}
	}
}

// refused calls tool and fails the test unless it is a tool error that
// holds every one of want.
func (f *fixture) refused(tool string, args map[string]any, want ...string) string {
	f.t.Helper()
	text, isErr := f.call(tool, args)
	if !isErr {
		f.t.Fatalf("%s %v: not a tool error: %s", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			f.t.Errorf("%s %v: error %q does not hold %q", tool, args, text, w)
		}
	}
	return text
}

type issue struct {
	ID, Title, Status, Assignee, Notes string
	Priority                           int
}

func TestTaskActions(t *testing.T) {
	f := newFixture(t, "")
	var created issue
	f.ok("task", map[string]any{"action": "create", "title": "write the parser", "priority": 1, "labels": []string{"parser"}}, &created)
	if !strings.HasPrefix(created.ID, "tk-") || created.Title != "write the parser" || created.Priority != 1 || created.Status != "open" {
		t.Fatalf("create = %+v", created)
	}
	var ready []issue
	f.ok("ready", map[string]any{}, &ready)
	if len(ready) != 1 || ready[0].ID != created.ID {
		t.Fatalf("ready = %+v, want %s", ready, created.ID)
	}

	var changed []issue
	f.ok("task", map[string]any{"action": "claim", "id": created.ID, "notes": "started on the lexer"}, &changed)
	if len(changed) != 1 || changed[0].Assignee != "agent-7" || changed[0].Status != "in_progress" || !strings.Contains(changed[0].Notes, "started on the lexer") {
		t.Errorf("claim = %+v, want in_progress, agent-7's, with the note", changed)
	}
	f.ok("task", map[string]any{"action": "update", "id": created.ID, "priority": 3}, &changed)
	if changed[0].Priority != 3 {
		t.Errorf("update priority = %+v", changed)
	}
	var comment struct {
		IssueID      string `json:"issue_id"`
		Author, Text string
	}
	f.ok("task", map[string]any{"action": "comment", "id": created.ID, "text": "the lexer is done"}, &comment)
	if comment.IssueID != created.ID || comment.Author != "agent-7" || comment.Text != "the lexer is done" {
		t.Errorf("comment = %+v", comment)
	}
	f.ok("task", map[string]any{"action": "close", "id": created.ID, "reason": "done"}, &changed)
	if changed[0].Status != "closed" {
		t.Errorf("close = %+v", changed)
	}
	f.ok("ready", map[string]any{}, &ready)
	if len(ready) != 0 {
		t.Errorf("ready after close = %+v, want none", ready)
	}
	data, err := os.ReadFile(filepath.Join(f.root, ".beads", "issues.jsonl"))
	if err != nil || !strings.Contains(string(data), `"status":"closed"`) || !strings.Contains(string(data), "the lexer is done") {
		t.Errorf("issues.jsonl after the calls: %v\n%s", err, data)
	}
}

func TestTaskRefusals(t *testing.T) {
	f := newFixture(t, "")
	var created issue
	f.ok("task", map[string]any{"action": "create", "title": "a task"}, &created)
	f.refused("task", map[string]any{"action": "close", "id": "tk-nope"}, `error: issue "tk-nope" not found`, `hint: run "memctl list --all" to see issue ids`)
	f.refused("task", map[string]any{"action": "delete", "id": created.ID}, `enum: delete does not equal any of: [create update claim close comment]`) // the schema's enum refuses it first
	f.refused("task", map[string]any{"action": "update"}, "action update needs the task id")
	f.refused("task", map[string]any{"action": "update", "id": created.ID}, "nothing to change")
	f.refused("task", map[string]any{"action": "create"}, "action create needs a title")
	f.refused("task", map[string]any{"action": "create", "title": "x", "priority": 9}, "priority")
	f.refused("task", map[string]any{"action": "comment", "id": created.ID}, "action comment needs the text")

	// Someone else's claim is refused with who holds it.
	f.env["MEMCTL_ACTOR"] = "other"
	f.ok("task", map[string]any{"action": "claim", "id": created.ID}, nil)
	f.env["MEMCTL_ACTOR"] = "agent-7"
	f.refused("task", map[string]any{"action": "claim", "id": created.ID}, "other", "hint: pick another issue")
}

func TestDisabledLayers(t *testing.T) {
	f := newFixture(t, "[tasks]\nenabled = false\n[facts]\nenabled = false\n[runs]\nenabled = false\n")
	hint := "set [tasks] enabled = true in " + config.ConfigFile
	f.refused("task", map[string]any{"action": "create", "title": "x"}, "the tasks layer is disabled", "hint: "+hint)
	f.refused("propose", map[string]any{"category": "pitfalls", "text": "x y z", "reason": "r"}, "the facts layer is disabled", "hint: set [facts] enabled = true")
	f.refused("record_run", map[string]any{"intent": "x"}, "the runs layer is disabled", "hint: set [runs] enabled = true")
	// A read of a disabled layer is empty, and says why.
	text, isErr := f.call("ready", map[string]any{})
	if isErr || !strings.HasPrefix(text, "[]") || !strings.Contains(text, "memctl: the tasks layer is disabled") {
		t.Errorf("ready with tasks off = %q (error %v), want [] and the note", text, isErr)
	}
	_, err := f.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: factsURI})
	if err == nil || !strings.Contains(err.Error(), "the facts layer is disabled") {
		t.Errorf("read %s with facts off: %v", factsURI, err)
	}
}

func TestLockHeld(t *testing.T) {
	f := newFixture(t, "")
	repo, err := gitx.Find(f.root)
	if err != nil {
		t.Fatal(err)
	}
	l, err := fsx.Acquire(context.Background(), config.LockPath(repo), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := l.Announce(fsx.Holder{PID: os.Getpid(), Command: "memctl review", Since: testNow}); err != nil {
		t.Fatal(err)
	}
	f.env["MEMCTL_LOCK_TIMEOUT"] = "0s"
	want := []string{fmt.Sprintf("workspace is locked by pid %d (memctl review", os.Getpid()), "hint: another memctl command is writing to this workspace"}
	f.refused("task", map[string]any{"action": "create", "title": "x"}, want...)
	f.refused("propose", map[string]any{"category": "pitfalls", "text": "x y z", "reason": "r"}, want...)
	f.refused("record_run", map[string]any{"intent": "x"}, want...)
	// Reads take no lock.
	f.ok("ready", map[string]any{}, nil)

	f.env["MEMCTL_LOCK_TIMEOUT"] = "soon"
	f.refused("task", map[string]any{"action": "create", "title": "x"}, `MEMCTL_LOCK_TIMEOUT="soon": want a duration such as 30s`)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	f.env["MEMCTL_LOCK_TIMEOUT"] = ""
	f.ok("task", map[string]any{"action": "create", "title": "x"}, nil)
}

// TestPanicReleasesTheLock: a call that panics holding the lock is a tool
// error, and the lock is released for the next call.
func TestPanicReleasesTheLock(t *testing.T) {
	f := newFixture(t, "", func(s *Server) {
		addTool(s, &sdk.Tool{Name: "boom"}, func(ctx context.Context, c *call, _ struct{}) (*sdk.CallToolResult, error) {
			if err := c.sess.Lock(ctx); err != nil {
				return nil, err
			}
			panic("boom")
		})
	})
	f.env["MEMCTL_LOCK_TIMEOUT"] = "0s"
	f.refused("boom", map[string]any{}, "error: memctl mcp boom: internal error: boom")
	// Released, not merely unreachable: Release removes the holder's note
	// (a lock file left open would also be closed by the garbage collector,
	// some time later).
	repo, err := gitx.Find(f.root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(config.LockPath(repo) + ".holder"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock's holder file after the panic: %v, want it removed by Release", err)
	}
	f.ok("task", map[string]any{"action": "create", "title": "after the panic"}, nil)
}

func TestProposeAndRecordRun(t *testing.T) {
	f := newFixture(t, "")
	var p struct{ ID, Status, Category, Author string }
	f.ok("propose", map[string]any{"category": "pitfalls", "text": "Run the integration tests with -p 1.", "reason": "port 7070 is shared",
		"evidence": []string{"task:tk-1"}}, &p)
	if p.Status != "pending" || p.Author != "agent-7" {
		t.Errorf("propose = %+v", p)
	}
	if _, err := os.Stat(filepath.Join(f.root, ".ledger", "proposals", p.ID+".json")); err != nil {
		t.Error(err)
	}
	secret := secretstest.Secrets()[0].Text
	text := f.refused("propose", map[string]any{"category": "pitfalls", "text": "use " + secret, "reason": "r"},
		"hint: remove the credential")
	if strings.Contains(text, secret) {
		t.Errorf("the refusal shows the secret: %s", text)
	}
	f.refused("propose", map[string]any{"category": "pitfalls", "text": "x y z"}, `missing properties: ["reason"]`)
	f.refused("propose", map[string]any{"category": "pitfalls", "text": "x y z", "reason": " "}, "reason is required")
	f.refused("propose", map[string]any{"text": "x y z", "reason": "r"}, "category is required")
	f.refused("propose", map[string]any{"category": "pitfals", "text": "a new fact", "reason": "r"}, `did you mean "pitfalls"?`)
	f.refused("propose", map[string]any{"category": "pitfalls", "text": "x y z", "reason": "r", "evidence": []string{"nokind"}}, "evidence")

	var run struct {
		SchemaVersion int `json:"schema_version"`
		Run           struct {
			RunID  string `json:"run_id"`
			Status string
			Digest struct{ Intent string }
			Tests  []struct{ Name, Status string }
			Path   string
		}
	}
	f.ok("record_run", map[string]any{"run_id": "r-one", "status": "failure", "intent": "fix the flaky test",
		"tests": []map[string]any{{"name": "TestParse", "status": "fail"}}, "commands": []map[string]any{{"cmd": "go test ./...", "exit_code": 1}}}, &run)
	if run.SchemaVersion != 1 || run.Run.RunID != "r-one" || run.Run.Status != "failure" || run.Run.Digest.Intent != "fix the flaky test" ||
		len(run.Run.Tests) != 1 || !strings.HasPrefix(run.Run.Path, ".ledger/runs/") {
		t.Errorf("record_run = %+v", run)
	}
	if _, err := os.Stat(filepath.Join(f.root, filepath.FromSlash(run.Run.Path))); err != nil {
		t.Error(err)
	}
	f.ok("record_run", map[string]any{"run_id": "r-one", "status": "success"}, &run)
	if run.Run.Status != "success" || run.Run.Digest.Intent != "fix the flaky test" {
		t.Errorf("record_run again = %+v, want merged", run)
	}
	f.refused("record_run", map[string]any{"status": "done"}, `enum: done does not equal any of: [success failure partial unknown]`)
	f.refused("record_run", map[string]any{"tests": []map[string]any{{"name": "T", "status": "ok"}}}, "want a name and a status pass, fail or skip")
	f.refused("record_run", map[string]any{"run_id": "../x"}, "run id")
	f.refused("record_run", map[string]any{"gotchas": []string{"the key is " + secret}}, "hint: remove the credential")
}

func TestRecallAndPrime(t *testing.T) {
	f := newFixture(t, "")
	f.ok("task", map[string]any{"action": "create", "title": "make the importer stream large CSV files"}, nil)
	var ans struct {
		SchemaVersion int `json:"schema_version"`
		Query, Mode   string
		Results       []struct{ Kind, ID string }
	}
	f.ok("recall", map[string]any{"query": "importer CSV", "kind": "task"}, &ans)
	if ans.SchemaVersion != 2 || ans.Mode != "hybrid" || len(ans.Results) != 1 || ans.Results[0].Kind != "task" {
		t.Errorf("recall = %+v", ans)
	}
	f.ok("recall", map[string]any{"query": "importer CSV", "kind": "fact"}, &ans)
	if len(ans.Results) != 0 {
		t.Errorf("recall kind fact = %+v, want none", ans.Results)
	}
	f.refused("recall", map[string]any{"query": "x", "kind": "note"}, `enum: note does not equal any of: [fact task proposal run playbook personal]`)
	f.refused("recall", map[string]any{"query": "  "}, "hint: ask in words")

	if _, isErr := f.call("prime", map[string]any{}); isErr {
		t.Error("prime: tool error")
	}
	f.refused("prime", map[string]any{"budget_tokens": -1}, "budget_tokens -1")
	// A budget that holds nothing is not an empty answer without a word.
	if text, isErr := f.call("prime", map[string]any{"budget_tokens": 2}); isErr || !strings.Contains(text, "the budget of 2 tokens holds nothing; try budget_tokens ") {
		t.Errorf("prime with budget 2 = %q, want a note that it holds nothing", text)
	}
}

func TestRecallFilters(t *testing.T) {
	f := newFixture(t, "")
	prefs := filepath.Join(f.home, ".config", "memctl", "preferences.md")
	if err := os.MkdirAll(filepath.Dir(prefs), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefs, []byte("# Preferences\n\n- Stream large CSV files with the importer, never load them whole.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.ok("task", map[string]any{"action": "create", "title": "make the importer stream large CSV files"}, nil)
	var ans struct {
		Results []struct {
			Kind, ID string
			Source   struct{ Path string }
		}
	}
	kinds := func() []string {
		var out []string
		for _, r := range ans.Results {
			out = append(out, r.Kind)
		}
		slices.Sort(out)
		return out
	}
	f.ok("recall", map[string]any{"query": "importer CSV"}, &ans)
	if got := kinds(); !slices.Equal(got, []string{"personal", "task"}) {
		t.Errorf("recall = %v, want the task and the personal preference", got)
	}
	f.ok("recall", map[string]any{"query": "importer CSV", "scope": "personal"}, &ans)
	if got := kinds(); !slices.Equal(got, []string{"personal"}) || ans.Results[0].Source.Path != "~/.config/memctl/preferences.md" {
		t.Errorf("recall scope personal = %+v", ans.Results)
	}
	f.ok("recall", map[string]any{"query": "importer CSV", "scope": "team"}, &ans)
	if got := kinds(); !slices.Equal(got, []string{"task"}) {
		t.Errorf("recall scope team = %v", got)
	}
	// The task was created at testNow; preferences have no date.
	f.ok("recall", map[string]any{"query": "importer CSV", "since": "2026-11-23", "until": "2026-11-23"}, &ans)
	if got := kinds(); !slices.Equal(got, []string{"task"}) {
		t.Errorf("recall since and until the day = %v", got)
	}
	f.ok("recall", map[string]any{"query": "importer CSV", "until": "1d"}, &ans)
	if len(ans.Results) != 0 {
		t.Errorf("recall until a day ago = %+v, want none", ans.Results)
	}
	f.refused("recall", map[string]any{"query": "x", "until": "soon"}, `until "soon": want a date (2026-01-02)`)
	f.refused("recall", map[string]any{"query": "x", "since": "2026-11-02", "until": "2026-11-01"},
		`since "2026-11-02" is later than until "2026-11-01": no date is in both`, "hint: swap them: since 2026-11-01 until 2026-11-02")
}

func TestFactsResources(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	res, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: factsURI})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, c := range res.Contents {
		uris = append(uris, c.URI)
	}
	if len(uris) == 0 || !strings.Contains(strings.Join(uris, " "), factsURI+"/pitfalls") {
		t.Errorf("%s contents = %v, want every facts file", factsURI, uris)
	}
	// The files are read on every call.
	if err := os.WriteFile(filepath.Join(f.root, ".ledger", "facts", "pitfalls.md"), []byte("# Pitfalls\n\n- Port 7070 is shared.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: factsURI + "/pitfalls"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Port 7070 is shared.") {
		t.Errorf("pitfalls = %+v", res.Contents)
	}
	for _, uri := range []string{factsURI + "/nosuch", factsURI + "/../config", "memctl://other"} {
		if _, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}
}

func TestOutsideAWorkspace(t *testing.T) {
	gitxtest.Isolate(t)
	s := New(Options{Dir: t.TempDir(), Getenv: func(string) string { return "" }, Now: func() time.Time { return testNow }})
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	f := &fixture{t: t, cs: cs}
	f.refused("ready", map[string]any{}, "not inside a git repository", `hint: memctl keeps its files in a git repository`)
}

// TestTaskNotesField: a refused note names the tool's field, notes, as
// create does, not the domain's append_notes.
func TestTaskNotesField(t *testing.T) {
	f := newFixture(t, "")
	var created issue
	f.ok("task", map[string]any{"action": "create", "title": "a task"}, &created)
	secret := secretstest.Secrets()[0].Text
	for _, tc := range []struct{ name, notes, want string }{
		{"a secret", "deploy with " + secret, `field "notes" contains what looks like a secret`},
		{"a bidi override", "ok \u202e reversed", `field "notes" has the bidirectional formatting character U+202E`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, action := range []string{"create", "update", "claim"} {
				args := map[string]any{"action": action, "id": created.ID, "title": "x", "notes": tc.notes}
				if action != "create" {
					delete(args, "title")
				}
				text := f.refused("task", args, tc.want)
				if strings.Contains(text, "append_notes") {
					t.Errorf("%s: the refusal names append_notes: %s", action, text)
				}
			}
		})
	}
}

// TestRecordRunRuntime: a run recorded without runtime is the MCP
// client's (its initialize request's clientInfo.name, "test" here).
func TestRecordRunRuntime(t *testing.T) {
	f := newFixture(t, "")
	var run struct {
		Run struct {
			Agent struct{ Runtime string }
		}
	}
	f.ok("record_run", map[string]any{"intent": "x"}, &run)
	if run.Run.Agent.Runtime != "test" {
		t.Errorf("runtime = %q, want the client's name, test", run.Run.Agent.Runtime)
	}
	f.ok("record_run", map[string]any{"intent": "y", "runtime": "codex"}, &run)
	if run.Run.Agent.Runtime != "codex" {
		t.Errorf("runtime = %q, want the one given, codex", run.Run.Agent.Runtime)
	}
	if got := clientName(nil); got != "mcp" {
		t.Errorf("clientName without a session = %q, want mcp", got)
	}
}

// TestZeroIsNotTheDefault: budget_tokens and limit, when given, are at
// least 1, as memctl prime --budget-tokens and memctl recall -k want;
// left out, they are the default.
func TestZeroIsNotTheDefault(t *testing.T) {
	f := newFixture(t, "")
	for _, n := range []int{0, -1} {
		f.refused("prime", map[string]any{"budget_tokens": n}, fmt.Sprintf("budget_tokens %d: use a positive number of tokens", n), "hint: leave budget_tokens out")
		f.refused("recall", map[string]any{"query": "the parser", "limit": n}, fmt.Sprintf("limit %d: want at least 1", n))
	}
	f.ok("prime", map[string]any{"budget_tokens": 50}, nil)
	f.ok("recall", map[string]any{"query": "the parser", "limit": 1}, nil)
	f.ok("recall", map[string]any{"query": "the parser"}, nil)
}

// TestCapabilities: the tools and the resources never change while the
// server runs, so it does not offer to say when they do.
func TestCapabilities(t *testing.T) {
	f := newFixture(t, "")
	caps := f.cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want present, without listChanged", caps.Tools)
	}
	if caps.Resources == nil || caps.Resources.ListChanged {
		t.Errorf("resources capability = %+v, want present, without listChanged", caps.Resources)
	}
}

// TestPrimeDisabled: with [prime] enabled = false the prime tool's text is
// empty and a note says why, as memctl prime says on stderr.
func TestPrimeDisabled(t *testing.T) {
	f := newFixture(t, "[prime]\nenabled = false\n")
	text, isErr := f.call("prime", map[string]any{})
	if isErr || !strings.Contains(text, "prime is disabled ([prime] enabled = false in "+config.ConfigFile+")") {
		t.Errorf("prime with prime off = %q (error %v), want the note", text, isErr)
	}
}

// TestRedactMode: with [secrets] mode = "redact" the tools store
// [REDACTED:<rule>] and say what they redacted among the result's notes,
// as the CLI says it on stderr.
func TestRedactMode(t *testing.T) {
	f := newFixture(t, "[secrets]\nmode = \"redact\"\n")
	secret := secretstest.Secrets()[0].Text
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"task", map[string]any{"action": "create", "title": "deploy", "description": "use " + secret}},
		{"propose", map[string]any{"category": "pitfalls", "text": "CI uses " + secret, "reason": "r"}},
		{"record_run", map[string]any{"run_id": "r-red", "gotchas": []string{"the key is " + secret}}},
	} {
		text, isErr := f.call(c.tool, c.args)
		if isErr || !strings.Contains(text, "[REDACTED:github-pat]") || strings.Contains(text, "ghp_") ||
			!strings.Contains(text, "warning: redacted github-pat in field ") {
			t.Errorf("%s: error %v:\n%s", c.tool, isErr, text)
		}
	}
}

// The MCP recall tool degrades as memctl recall does when the embedder is
// down: results by words, one warning; the next call, a new session like
// the next process, skips the embedder and says until when.
func TestRecallWithTheEmbedderDown(t *testing.T) {
	// Nothing listens on port 1.
	f := newFixture(t, "[embed]\nprovider = \"ollama\"\nmodel = \"nomic-embed-text\"\nurl = \"http://127.0.0.1:1\"\n")
	f.ok("task", map[string]any{"action": "create", "title": "make the importer stream large CSV files"}, nil)
	var ans struct {
		Mode    string
		Results []struct{ Kind, ID string }
	}
	for i, want := range []string{
		"warning: dense search failed (ollama embedder at http://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused); words only, and ollama:nomic-embed-text is skipped until 2026-11-23T10:01:00Z",
		"warning: dense search skipped: ollama:nomic-embed-text has failed since 2026-11-23T10:00:00Z",
	} {
		text, isErr := f.call("recall", map[string]any{"query": "importer CSV"})
		if isErr {
			t.Fatalf("recall %d: tool error: %s", i, text)
		}
		if err := json.NewDecoder(strings.NewReader(text)).Decode(&ans); err != nil {
			t.Fatal(err)
		}
		if ans.Mode != "bm25" || len(ans.Results) != 1 {
			t.Errorf("recall %d = %+v, want the task, by words", i, ans)
		}
		if strings.Count(text, "warning:") != 1 || !strings.Contains(text, want) {
			t.Errorf("recall %d says:\n%s\nwant one warning: %s", i, text, want)
		}
	}
}
