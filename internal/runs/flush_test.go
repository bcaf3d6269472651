package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs/signature"
	"github.com/memctl/memctl/internal/runs/transcript"
	"github.com/memctl/memctl/internal/secrets/secretstest"
	"github.com/memctl/memctl/internal/tasks"
)

// claudeSession writes Claude Code transcript lines for a session in root:
// edits and Bash commands, each with its result.
type claudeSession struct {
	root, path string
	n          int
}

func (c *claudeSession) add(t *testing.T, use, result string, isError bool) {
	t.Helper()
	c.n++
	ts := fmt.Sprintf("2026-11-23T10:%02d:00Z", c.n)
	id := fmt.Sprintf("toolu_%d", c.n)
	lines := fmt.Sprintf(`{"type":"assistant","sessionId":"s-1","cwd":%q,"timestamp":%q,"message":{"id":"m%d","model":"claude-x","content":[{"type":"tool_use","id":%q,%s}]}}`+"\n"+
		`{"type":"user","sessionId":"s-1","cwd":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q,"is_error":%t}]}}`+"\n",
		c.root, ts, c.n, id, use, c.root, ts, id, result, isError)
	f, err := os.OpenFile(c.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
}

func (c *claudeSession) edit(t *testing.T, file string) {
	c.add(t, fmt.Sprintf(`"name":"Edit","input":{"file_path":%q}`, filepath.Join(c.root, file)), "ok", false)
}

func (c *claudeSession) bash(t *testing.T, cmd, out string, exit int) {
	if exit != 0 {
		out = fmt.Sprintf("Exit code %d\n%s", exit, out)
	}
	c.add(t, fmt.Sprintf(`"name":"Bash","input":{"command":%q}`, cmd), out, exit != 0)
}

// flushWorkspace makes a git repository with a .ledger directory and a task
// graph where dev has app-1 in progress, and returns it opened.
func flushWorkspace(t *testing.T) *config.Workspace {
	t.Helper()
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".ledger", ".beads"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	issues := `{"id":"app-1","title":"one","status":"in_progress","assignee":"dev","priority":2,"notes":"started by hand"}` + "\n" +
		`{"id":"app-2","title":"two","status":"in_progress","assignee":"someone else","priority":2}` + "\n" +
		`{"id":"app-3","title":"three","status":"open","priority":2}` + "\n"
	if err := os.WriteFile(filepath.Join(root, ".beads", "issues.jsonl"), []byte(issues), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := config.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func notesOf(t *testing.T, ws *config.Workspace, id string) string {
	t.Helper()
	s, err := tasks.Load(ws.Path(config.IssuesFile))
	if err != nil {
		t.Fatal(err)
	}
	iss, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return iss.Notes
}

// flushWithIssues writes the task graph, then flushes session sid of Codex
// with no transcript, as dev.
func flushWithIssues(t *testing.T, ws *config.Workspace, sid, issues string) FlushResult {
	t.Helper()
	if err := os.WriteFile(ws.Path(config.IssuesFile), []byte(issues), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Flush(context.Background(), FlushRequest{
		SessionID: sid, Runtime: transcript.RuntimeCodex,
		Store:   Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir},
		Context: Context{Now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)},
		Tasks:   &TaskNotes{Workspace: ws, Actor: tasks.Actor{Name: "dev"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A session flushed as it goes (PreCompact fires again and again) keeps one
// record whose "edited …" change and progress note follow the transcript,
// without piling up, and what an agent added itself stays.
func TestFlushGrowingSession(t *testing.T) {
	ws := flushWorkspace(t)
	s := Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir}
	c := &claudeSession{root: ws.Root, path: filepath.Join(t.TempDir(), "s-1.jsonl")}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	flush := func() FlushResult {
		t.Helper()
		res, err := Flush(context.Background(), FlushRequest{
			Hook:    transcript.HookInput{Runtime: transcript.RuntimeClaudeCode, SessionID: "s-1", TranscriptPath: c.path, Event: "PreCompact"},
			Store:   s,
			Root:    ws.Root,
			Context: Context{Now: now, Branch: "main"},
			Tasks:   &TaskNotes{Workspace: ws, Actor: tasks.Actor{Name: "dev"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			t.Errorf("warning: %v", w)
		}
		return res
	}
	id := SessionRunID(transcript.RuntimeClaudeCode, "s-1")

	c.edit(t, "a.go")
	c.bash(t, "go test ./...", "--- FAIL: TestA (0.00s)\n    a_test.go:3: boom\nFAIL", 1)
	res := flush()
	if !res.Created || res.Entry.Record.RunID != id || res.Entry.Record.Status != StatusFailure {
		t.Fatalf("first flush: created %v, run %s, status %s", res.Created, res.Entry.Record.RunID, res.Entry.Record.Status)
	}
	if !slices.Equal(res.Noted, []string{"app-1"}) {
		t.Errorf("noted %v, want [app-1] (app-2 is someone else's, app-3 not in progress)", res.Noted)
	}
	first := "2026-11-23 run " + id + ": edited a.go; go test ./... failed (exit 1); failing: TestA"
	if got := notesOf(t, ws, "app-1"); got != "started by hand\n"+first {
		t.Errorf("notes after the first flush:\n%s", got)
	}

	// The agent records a change of its own between two flushes.
	if _, _, err := s.Put(&Record{RunID: id, Digest: Digest{Changes: []string{"edited the docs by hand"}}}, PutOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	if res := flush(); res.Noted != nil {
		t.Errorf("a flush with nothing new noted %v", res.Noted)
	}

	c.edit(t, "b.go")
	c.bash(t, "go test ./...", "ok  \tapp\t0.1s", 0)
	res = flush()
	r := res.Entry.Record
	if want := []string{"edited the docs by hand", "edited a.go, b.go"}; !slices.Equal(r.Digest.Changes, want) {
		t.Errorf("changes %q, want %q", r.Digest.Changes, want)
	}
	if r.Status != StatusSuccess || len(r.TaskIDs) != 1 || r.TaskIDs[0] != "app-1" {
		t.Errorf("status %s, task_ids %v; want success, [app-1]", r.Status, r.TaskIDs)
	}
	last := "2026-11-23 run " + id + ": edited a.go, b.go; go test ./... passed"
	if got := notesOf(t, ws, "app-1"); got != "started by hand\n"+last {
		t.Errorf("notes after the last flush (the run's line replaced):\n%s", got)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*", "*.json"))
	if len(files) != 1 {
		t.Errorf("run files %v, want one", files)
	}
}

// An issues file that cannot be read is never written: the record is,
// with a warning.
func TestFlushNoNotesOnUnreadableTasks(t *testing.T) {
	ws := flushWorkspace(t)
	res := flushWithIssues(t, ws, "s-2", "{not json\n")
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "progress notes not written: .beads/issues.jsonl") {
		t.Errorf("warnings %v", res.Warnings)
	}
	if r := res.Entry.Record; r.RunID != SessionRunID(transcript.RuntimeCodex, "s-2") || r.StartedAt.IsZero() || r.Status != StatusUnknown {
		t.Errorf("record %s, started %v, status %s", r.RunID, r.StartedAt, r.Status)
	}
}

func TestFlushWithoutSession(t *testing.T) {
	if _, err := Flush(context.Background(), FlushRequest{}); err != ErrNoSession {
		t.Errorf("err = %v, want ErrNoSession", err)
	}
}

func TestFromSessionHookOnly(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := FromSession(nil, transcript.HookInput{LastAssistantMessage: " done \n", CompactSummary: strings.Repeat("é", 3000), Model: "m"}, "/w", now)
	if r.Digest.Result != "done" || r.Agent.Model != "m" || !r.StartedAt.Equal(now) || !r.EndedAt.Equal(now) || r.Status != StatusUnknown {
		t.Errorf("record %+v", r)
	}
	if got := r.CompactSummary(); got != strings.Repeat("é", maxCompactSummary) {
		t.Errorf("compact summary of %d characters, want %d", len([]rune(got)), maxCompactSummary)
	}
}

func TestSessionStatus(t *testing.T) {
	t.Parallel()
	cmd := func(c string, exit int) transcript.Command { return transcript.Command{Cmd: c, ExitCode: exit} }
	for _, tc := range []struct {
		name  string
		cmds  []transcript.Command
		tests []transcript.Test
		want  string
	}{
		{"last check failed", []transcript.Command{cmd("go test ./...", 0), cmd("go test ./...", 1), cmd("git status", 0)}, nil, StatusFailure},
		{"last check passed after a failure", []transcript.Command{cmd("pytest -q", 1), cmd("python -m pytest", 0)}, []transcript.Test{{Name: "t", Status: TestPass}}, StatusSuccess},
		{"the same runner on wider arguments", []transcript.Command{cmd("go test ./x", 1), cmd("go test ./...", 0)}, nil, StatusSuccess},
		{"another verb of the same tool still failing", []transcript.Command{cmd("go build ./...", 1), cmd("go test ./x", 0)}, nil, StatusPartial},
		{"last check passed after a test failed (go test prints no passes)", []transcript.Command{cmd("go test ./x", 1), cmd("go test ./x", 0)}, []transcript.Test{{Name: "TestY", Status: TestFail}}, StatusSuccess},
		{"last check passed, another still failing", []transcript.Command{cmd("pytest tests", 1), cmd("cd app && go test ./...", 0)}, nil, StatusPartial},
		{"a check without an exit status does not count", []transcript.Command{cmd("go test ./...", 1), cmd("go test ./...", -1)}, nil, StatusFailure},
		{"no check, a test failing", []transcript.Command{cmd("./run.sh", 1)}, []transcript.Test{{Name: "t", Status: TestFail}}, StatusFailure},
		{"no check, tests passing", nil, []transcript.Test{{Name: "t", Status: TestPass}}, StatusSuccess},
		{"commands only", []transcript.Command{cmd("ls", 0), cmd("git push", 128)}, nil, StatusUnknown},
		{"nothing", nil, nil, StatusUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SessionStatus(&transcript.Session{Commands: tc.cmds, Tests: tc.tests}); got != tc.want {
				t.Errorf("SessionStatus = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestIsCheck(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"go test ./...":                           "go test ./...",
		"cd app && GOFLAGS=-mod=mod go  vet ./x":  "go vet ./x",
		"make -C sub test":                        "make -C sub test",
		"npm run test -- --watch=false":           "npm run test -- --watch=false",
		"python3 -m pytest -q tests":              "python3 -m pytest -q tests",
		"/usr/local/bin/pytest":                   "/usr/local/bin/pytest",
		"cargo build --release | tail":            "cargo build --release",
		"git commit -m 'add test'":                "",
		"go run ./cmd/test":                       "",
		"memctl close app-1 && echo test":         "",
		"npm install":                             "",
		"time cargo test; echo done":              "cargo test",
		"bash -lc 'ls'":                           "",
		"yarn lint":                               "yarn lint",
		"go mod tidy && go build ./... && ls bin": "go build ./...",
	} {
		if got := checkPart(cmd); got != want {
			t.Errorf("checkPart(%q) = %q, want %q", cmd, got, want)
		}
		if IsCheck(cmd) != (want != "") {
			t.Errorf("IsCheck(%q) = %v", cmd, !(want != ""))
		}
	}
}

func TestSupersededChange(t *testing.T) {
	t.Parallel()
	files := []string{"a.go", "b.go", "c.go"}
	for c, want := range map[string]bool{
		"edited a.go":                  true,
		"edited a.go, b.go, c.go":      true,
		"edited a.go and 2 more":       true,
		"edited a.go and 3 more":       false, // counts more files than the session has
		"edited d.go":                  false,
		"edited the docs":              false,
		"renamed a.go":                 false,
		"edited a.go, b.go and 1 more": true,
	} {
		if got := supersededChange(c, files); got != want {
			t.Errorf("supersededChange(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestChangesLine(t *testing.T) {
	t.Parallel()
	var files []string
	for i := range 12 {
		files = append(files, fmt.Sprintf("f%d.go", i))
	}
	if got := changesLine(files); got != "edited f0.go, f1.go, f2.go, f3.go, f4.go, f5.go, f6.go, f7.go, f8.go, f9.go and 2 more" {
		t.Errorf("changesLine = %q", got)
	}
	if !supersededChange(changesLine(files[:11]), files) {
		t.Error("the line of 11 files is not superseded by 12")
	}
}

func TestErrorPlace(t *testing.T) {
	t.Parallel()
	changed := []string{"internal/x/parse.go", "internal/x/parse_test.go"}
	for text, want := range map[string]string{
		"    parse_test.go:41: want 2":                    "internal/x/parse_test.go:41",
		"/home/a/app/internal/x/parse.go:12:5: undefined": "internal/x/parse.go:12",
		"other.go:3: boom":                                ":0",
		"see parse.go for details":                        ":0",
	} {
		f, l := errorPlace(text, changed)
		if got := fmt.Sprintf("%s:%d", f, l); got != want {
			t.Errorf("errorPlace(%q) = %s, want %s", text, got, want)
		}
	}
}

// A task whose notes the gate refuses to rewrite (a secret a person pasted
// there) loses its note, not the other tasks theirs.
func TestFlushNoteRefusedForOneTask(t *testing.T) {
	ws := flushWorkspace(t)
	id := SessionRunID(transcript.RuntimeCodex, "s-3")
	tok := secretstest.Secrets()[0].Text
	issues := fmt.Sprintf(`{"id":"app-1","title":"one","status":"in_progress","assignee":"dev","priority":2,"notes":%q}`+"\n"+
		`{"id":"app-4","title":"four","status":"in_progress","assignee":"dev","priority":2}`+"\n",
		tok+"\n2026-11-22 run "+id+": edited x.go")
	store := Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir}
	if _, _, err := store.Put(&Record{RunID: id, SessionID: "s-3", FilesChanged: []string{"x.go"}},
		PutOptions{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	res := flushWithIssues(t, ws, "s-3", issues)
	if !slices.Equal(res.Noted, []string{"app-4"}) {
		t.Errorf("noted %v, want [app-4]", res.Noted)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "progress note on app-1") {
		t.Errorf("warnings %v", res.Warnings)
	}
	if got, want := notesOf(t, ws, "app-4"), "2026-11-23 run "+id+": edited x.go"; got != want {
		t.Errorf("app-4's notes %q, want %q", got, want)
	}
	if r := res.Entry.Record; !slices.Equal(r.TaskIDs, []string{"app-1", "app-4"}) {
		t.Errorf("task_ids %v", r.TaskIDs)
	}
}

// A hook whose input does not tell the runtime (a SessionEnd with only the
// fields every runtime sends) updates the session's record without
// forgetting the runtime an earlier flush knew.
func TestFlushUnknownRuntimeKeepsTheKnownOne(t *testing.T) {
	ws := flushWorkspace(t)
	s := Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, rt := range []string{transcript.RuntimeClaudeCode, transcript.RuntimeUnknown} {
		res, err := Flush(context.Background(), FlushRequest{
			Hook:    transcript.HookInput{Runtime: rt, SessionID: "s-5", Event: "SessionEnd"},
			Store:   s,
			Context: Context{Now: now},
		})
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Entry.Record; r.RunID != SessionRunID(transcript.RuntimeClaudeCode, "s-5") || r.Agent.Runtime != transcript.RuntimeClaudeCode {
			t.Errorf("after a flush of runtime %s: run %s, runtime %q", rt, r.RunID, r.Agent.Runtime)
		}
	}
}

// A session whose runtime nothing tells is recorded as unknown, not "".
func TestFlushNewRecordOfUnknownRuntime(t *testing.T) {
	ws := flushWorkspace(t)
	res, err := Flush(context.Background(), FlushRequest{
		Hook:    transcript.HookInput{Runtime: transcript.RuntimeUnknown, SessionID: "s-7", Event: "SessionEnd"},
		Store:   Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir},
		Context: Context{Now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Entry.Record; r.Agent.Runtime != transcript.RuntimeUnknown || r.RunID != SessionRunID(transcript.RuntimeUnknown, "s-7") {
		t.Errorf("run %s, runtime %q; want the unknown runtime's id and runtime %q", r.RunID, r.Agent.Runtime, transcript.RuntimeUnknown)
	}
}

// AfterRecord gets the record as stored, while the lock is still held.
func TestFlushAfterRecordUnderTheLock(t *testing.T) {
	ws := flushWorkspace(t)
	var events []string
	var got *Record
	_, err := Flush(context.Background(), FlushRequest{
		SessionID: "s-6", Runtime: transcript.RuntimeCodex,
		Store:   Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir},
		Context: Context{Now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Branch: "main"},
		Lock: func(context.Context) (func(), error) {
			events = append(events, "lock")
			return func() { events = append(events, "release") }, nil
		},
		AfterRecord: func(_ context.Context, r *Record) { events = append(events, "after"); got = r },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(events, []string{"lock", "after", "release"}) {
		t.Errorf("events %v", events)
	}
	if got == nil || got.RunID != SessionRunID(transcript.RuntimeCodex, "s-6") || got.Branch != "main" {
		t.Errorf("AfterRecord got %+v", got)
	}
}

// TestFromSessionBoundsErrorsAndTests: a session that failed in many ways
// keeps one error per signature (its latest text, in the order errors last
// occurred), the last maxErrors of them, and each test once with its last
// status, at most maxTests with the failing ones first.
func TestFromSessionBoundsErrorsAndTests(t *testing.T) {
	t.Parallel()
	s := &transcript.Session{}
	for i := range maxErrors + 5 {
		s.Errors = append(s.Errors, fmt.Sprintf("panic: error kind %c", 'A'+i))
	}
	s.Errors = append(s.Errors, "panic: error kind F") // again, now the newest
	s.Tests = append(s.Tests, transcript.Test{Name: "TestFlaky", Status: TestFail})
	for i := range maxTests + 10 {
		s.Tests = append(s.Tests, transcript.Test{Name: fmt.Sprintf("TestPass%d", i), Status: TestPass})
	}
	s.Tests = append(s.Tests, transcript.Test{Name: "TestLate", Status: TestFail}, transcript.Test{Name: "TestFlaky", Status: TestPass})
	r := FromSession(s, transcript.HookInput{}, "", time.Unix(0, 0))

	if len(r.Errors) != maxErrors {
		t.Fatalf("%d errors, want %d", len(r.Errors), maxErrors)
	}
	if last := r.Errors[len(r.Errors)-1]; last.Excerpt != "panic: error kind F" || last.Signature != signature.Of(last.Excerpt).Hash {
		t.Errorf("last error %+v, want kind F (repeated last) with its signature", last)
	}
	if first := r.Errors[0].Excerpt; first != "panic: error kind G" {
		t.Errorf("first error kept %q, want kind G (A to E and the first F dropped)", first)
	}
	if len(r.Tests) != maxTests {
		t.Fatalf("%d tests, want %d", len(r.Tests), maxTests)
	}
	if r.Tests[0].Name != "TestLate" || r.Tests[0].Status != TestFail {
		t.Errorf("first test %+v, want the failing TestLate", r.Tests[0])
	}
	for _, x := range r.Tests {
		if x.Name == "TestFlaky" && x.Status != TestPass {
			t.Errorf("TestFlaky %s, want its last status, pass", x.Status)
		}
	}
}

// A session that did nothing yet (opened and quit; its hooks flush it with
// no transcript) is recorded, but leaves no progress note: one saying
// nothing would become the task's latest note and hide the person's.
func TestFlushNothingLeavesNoNote(t *testing.T) {
	ws := flushWorkspace(t)
	issues := `{"id":"app-1","title":"one","status":"in_progress","assignee":"dev","priority":2,"notes":"ask Ana about the tabs"}` + "\n"
	res := flushWithIssues(t, ws, "s-9", issues)
	if res.Entry.Record == nil || res.Entry.Record.RunID == "" {
		t.Fatalf("no record: %+v", res)
	}
	if len(res.Noted) != 0 {
		t.Errorf("noted %v, want none", res.Noted)
	}
	if got := notesOf(t, ws, "app-1"); got != "ask Ana about the tabs" {
		t.Errorf("app-1's notes %q, want the person's alone", got)
	}
	if res.Entry.Record.SaysSomething() {
		t.Errorf("an empty session's record says something: %+v", res.Entry.Record.Digest)
	}
}
