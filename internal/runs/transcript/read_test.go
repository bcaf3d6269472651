package transcript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// githubToken is a fake GitHub token built at test time (no file of the
// repository holds one): the fixtures say @GITHUB_TOKEN@ where a session
// leaked it.
func githubToken(t testing.TB) string {
	for _, s := range secretstest.Secrets() {
		if s.Kind == "GITHUB" {
			_, tok, _ := strings.Cut(s.Text, "=")
			return tok
		}
	}
	t.Fatal("secretstest has no GitHub token")
	return ""
}

// fixture copies testdata/name into a temporary directory with the fake
// token in place of @GITHUB_TOKEN@ and returns its path.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	text := strings.ReplaceAll(string(b), "@GITHUB_TOKEN@", githubToken(t))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// checkSession compares field by field, so that a failure names the field.
func checkSession(t *testing.T, got, want *Session) {
	t.Helper()
	if got == nil {
		t.Fatal("session is nil")
	}
	g, w := reflect.ValueOf(*got), reflect.ValueOf(*want)
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
}

func TestReadMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nope.jsonl")
	s, err := Read(context.Background(), path, RuntimeClaudeCode, Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing file: err = %v, want fs.ErrNotExist", err)
	}
	if s != nil {
		t.Errorf("Read of a missing file returned a session: %+v", s)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestReadSniffsTheFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, runtime, want string }{
		{"claude-session.jsonl", "", RuntimeClaudeCode},
		{"claude-session.jsonl", RuntimeUnknown, RuntimeClaudeCode},
		{"claude-session.jsonl", RuntimeCursor, RuntimeClaudeCode},
		{"codex-rollout.jsonl", "", RuntimeCodex},
		{"codex-rollout.jsonl", RuntimeGemini, RuntimeCodex},
		{"codex-rollout.jsonl", RuntimeClaudeCode, RuntimeCodex}, // a wrong guess
		{"claude-session.jsonl", RuntimeCodex, RuntimeClaudeCode},
	} {
		s, err := Read(context.Background(), fixture(t, tc.file), tc.runtime, Options{})
		if err != nil {
			t.Errorf("Read(%s, %q): %v", tc.file, tc.runtime, err)
			continue
		}
		if s.Runtime != tc.want || s.FirstUserText == "" {
			t.Errorf("Read(%s, %q): runtime %q, intent %q; want %q and an intent", tc.file, tc.runtime, s.Runtime, s.FirstUserText, tc.want)
		}
	}
}

// A transcript the agent has not written to yet is an empty session.
func TestReadEmptyTranscript(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new.jsonl")
	if err := os.WriteFile(path, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(context.Background(), path, RuntimeCodex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, s, &Session{Runtime: RuntimeCodex, FilesChanged: []string{}, Commands: []Command{}, Tests: []Test{},
		Errors: []string{}, TaskClaims: []string{}, TaskCloses: []string{}})
}

func TestReadUnknownFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"gemini.json": "{\n  \"sessionId\": \"f2a9\",\n  \"messages\": []\n}\n",
		"notes.txt":   "user: fix the build\nassistant: done\n",
		"empty.jsonl": "",
		"other.jsonl": `{"event":"start","id":1}` + "\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := Read(context.Background(), path, "", Options{}); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Read(%s) = %+v, %v; want ErrUnknownFormat", name, s, err)
		}
	}
}

// A damaged transcript gives what could be read and an error that counts
// and locates what could not: a garbage line, a line cut off by a crash
// (the last line has no newline), a line over the limit.
func TestReadDamagedTranscript(t *testing.T) {
	t.Parallel()
	long := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"` +
		strings.Repeat("y", 5000) + `"}]},"timestamp":"2026-11-23T10:00:03Z"}`
	text := strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"fix the flaky test"},"sessionId":"s1","cwd":"/w","timestamp":"2026-11-23T10:00:00Z"}`,
		`this is not json`,
		long,
		`{"type":"assistant","message":{"model":"claude-sonnet-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}]},"timestamp":"2026-11-23T10:00:04Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Exit code 1\n--- FAIL: TestFlaky (0.01s)","is_error":true}]},"timestamp":"2026-11-23T10:00:05Z"}`,
		`{"type":"assistant","message":{"model":"claude-sonnet-5","role":"assistant","content":[{"type":"text","text":"It fails`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "damaged.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(context.Background(), path, RuntimeClaudeCode, Options{MaxLineBytes: 4096})
	var le *LinesError
	if !errors.As(err, &le) {
		t.Fatalf("Read of a damaged transcript: err = %v, want a *LinesError", err)
	}
	if le.Path != path || le.Bad != 2 || le.Long != 1 || le.FirstLine != 2 {
		t.Errorf("LinesError = %+v, want path %s, 2 bad lines, 1 long, first at line 2", le, path)
	}
	for _, part := range []string{path, "line 2", "3 lines skipped"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	checkSession(t, s, &Session{
		Runtime:       RuntimeClaudeCode,
		SessionID:     "s1",
		Model:         "claude-sonnet-5",
		Cwd:           "/w",
		Started:       mustTime(t, "2026-11-23T10:00:00Z"),
		Ended:         mustTime(t, "2026-11-23T10:00:05Z"),
		FirstUserText: "fix the flaky test",
		FilesChanged:  []string{},
		Commands:      []Command{{Cmd: "go test ./...", ExitCode: 1, Output: "--- FAIL: TestFlaky (0.01s)"}},
		Tests:         []Test{{Name: "TestFlaky", Status: "fail"}},
		Errors:        []string{"--- FAIL: TestFlaky (0.01s)"},
		TaskClaims:    []string{},
		TaskCloses:    []string{},
	})
}

func TestReadStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Read(ctx, fixture(t, "claude-session.jsonl"), RuntimeClaudeCode, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context: err = %v, want context.Canceled", err)
	}
	if s == nil {
		t.Error("Read with a cancelled context returned no session; want what was read")
	}
}

// A FIFO blocks whoever opens it until a writer comes, and a device such
// as /dev/zero never ends: a transcript path that is not a regular file is
// refused before it is opened.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	// A FIFO: testdata/script/hook_budget.txtar (mkfifo is not portable).
	for _, path := range []string{os.DevNull, t.TempDir()} {
		s, err := Read(context.Background(), path, RuntimeClaudeCode, Options{})
		if !errors.Is(err, ErrNotRegular) || s != nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Read(%s) = %v, %v; want ErrNotRegular naming the path", path, s, err)
		}
	}
}

// A line that never ends (a stream of bytes without a newline) is read in
// buffer-sized pieces; the reader checks the context between them.
func TestReadStopsInALineWithoutEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := &endless{after: 1 << 20, cancel: cancel}
	_, err := Parse(ctx, r, "endless", RuntimeClaudeCode, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if r.n > r.after+1<<20 {
		t.Errorf("read %d bytes after the context ended", r.n-r.after)
	}
}

// endless yields 'x' for ever, cancelling after some bytes.
type endless struct {
	n, after int
	cancel   func()
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	if e.n += len(p); e.n >= e.after {
		e.cancel()
	}
	return len(p), nil
}
