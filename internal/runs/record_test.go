package runs

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// full is a record in the file format with every known key, in order,
// and unknown keys at the top level, in agent, digest and a command.
const full = `{
  "schema_version": 1,
  "run_id": "r-abc",
  "session_id": "s-1",
  "actor": "ada",
  "task_ids": [
    "app-3f2"
  ],
  "agent": {
    "runtime": "claude-code",
    "model": "claude-x",
    "effort": "high"
  },
  "repo": "github.com/acme/app",
  "branch": "main",
  "commit_sha": "0123456789abcdef0123456789abcdef01234567",
  "started_at": "2026-11-23T10:00:00Z",
  "ended_at": "2026-11-23T11:00:00Z",
  "status": "failure",
  "digest": {
    "intent": "fix the <parser>",
    "result": "",
    "changes": [],
    "decisions": [
      "keep & reuse"
    ],
    "gotchas": [],
    "next_steps": [],
    "mood": [
      1,
      2
    ]
  },
  "files_changed": [
    "internal/x.go"
  ],
  "commands": [
    {
      "cmd": "go test ./...",
      "exit_code": 1,
      "ms": 1200
    }
  ],
  "tests": [
    {
      "name": "TestX",
      "status": "fail"
    }
  ],
  "errors": [
    {
      "signature": "e3b0c44298fc",
      "excerpt": "x_test.go:12: want 1, got 2",
      "file": "internal/x.go",
      "line": 12
    },
    {
      "signature": "",
      "excerpt": "panic",
      "file": ""
    }
  ],
  "artifact_refs": [],
  "zz_tool": {
    "name": "ci"
  },
  "aa_later": true
}
`

func TestRoundTripKeepsUnknownKeys(t *testing.T) {
	r, err := Decode([]byte(full), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.UnknownKeys(), ","); got != "zz_tool,aa_later" {
		t.Errorf("extra keys %q, want file order zz_tool,aa_later", got)
	}
	if got := string(Encode(r)); got != full {
		t.Errorf("round trip changed the file:\n%s", got)
	}
}

func TestEncodeEmptyRecord(t *testing.T) {
	want := `{
  "schema_version": 1,
  "run_id": "r-1",
  "session_id": "",
  "actor": "",
  "task_ids": [],
  "agent": {
    "runtime": "",
    "model": ""
  },
  "repo": "",
  "branch": "",
  "commit_sha": "",
  "started_at": "",
  "ended_at": "",
  "status": "unknown",
  "digest": {
    "intent": "",
    "result": "",
    "changes": [],
    "decisions": [],
    "gotchas": [],
    "next_steps": []
  },
  "files_changed": [],
  "commands": [],
  "tests": [],
  "errors": [],
  "artifact_refs": []
}
`
	if got := string(Encode(&Record{RunID: "r-1"})); got != want {
		t.Errorf("got\n%s", got)
	}
}

func TestDecodeErrorsNameLineAndField(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"not JSON", "{\n  \"run_id\": \"r-1\",\n  oops\n}", `r.json:3: not valid JSON`},
		{"truncated", "{\n  \"run_id\": \"r-1\",\n", `r.json:3: not valid JSON: the text ends`},
		{"wrong type", "{\n  \"run_id\": \"r-1\",\n  \"status\": 3\n}", `r.json:3: field "status": want a string, not a number`},
		{"unknown status", "{\n  \"run_id\": \"r-1\",\n  \"status\": \"done\"\n}", `r.json:3: field "status": unknown status "done": use success, failure, partial or unknown`},
		{"nested", "{\n  \"run_id\": \"r-1\",\n  \"commands\": [\n    {\"cmd\": \"make\", \"exit_code\": 0},\n    {\"cmd\": \"make\",\n     \"exit_code\": \"1\"}\n  ]\n}", `r.json:6: field "commands[1].exit_code": want a whole number, not a string`},
		{"list element", "{\n  \"run_id\": \"r-1\",\n  \"task_ids\": [\"a\",\n  7]\n}", `r.json:4: field "task_ids[1]": want a string, not a number`},
		{"digest", "{\"run_id\": \"r-1\",\n\"digest\": {\"intent\": \"x\",\n \"gotchas\": \"y\"}}", `r.json:3: field "digest.gotchas": want a list, not a string`},
		{"time", "{\"run_id\": \"r-1\",\n\"started_at\": \"yesterday\"}", `r.json:2: field "started_at": want a time in RFC 3339`},
		{"test status", "{\"run_id\": \"r-1\",\n\"tests\": [{\"name\": \"T\", \"status\": \"ok\"}]}", `r.json:2: field "tests[0].status": unknown test status "ok"`},
		{"no run id", "{\n\"status\": \"success\"}", `r.json:1: field "run_id": missing`},
		{"bad run id", "{\n\"run_id\": \"../x\"}", `r.json:2: field "run_id": "../x" is not a run id`},
		{"newer", "{\"schema_version\": 2, \"run_id\": \"r-1\"}", `field "schema_version": version 2 is not one this memctl reads`},
		{"duplicate", "{\"run_id\": \"r-1\",\n\"run_id\": \"r-2\"}", `r.json:2: field "run_id": the key appears twice`},
		{"not an object", "[1]", `r.json:1: want an object, not a list`},
		{"trailing", "{\"run_id\": \"r-1\"}\n{}", `r.json:2: text after the record's closing brace`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.text), "r.json")
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FileError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	old := &Record{RunID: "r-1", SessionID: "s", TaskIDs: []string{"a", "b"}, Status: StatusFailure,
		Agent:     Agent{Runtime: "codex", Model: "m1"},
		StartedAt: t0, EndedAt: t0.Add(time.Hour),
		Digest:   Digest{Intent: "old intent", Gotchas: []string{"g1"}},
		Commands: []Command{{Cmd: "go test", ExitCode: 1}},
		Tests:    []Test{{Name: "T1", Status: TestFail}, {Name: "T2", Status: TestPass}},
		Errors:   []Error{{Signature: "aaa", Excerpt: "first", File: "x.go", Line: 3}},
	}
	new := &Record{RunID: "r-1", TaskIDs: []string{"b", "c"}, Status: StatusSuccess,
		Agent:     Agent{Model: "m2"},
		StartedAt: t0.Add(-time.Minute), EndedAt: t0.Add(30 * time.Minute),
		Digest:   Digest{Gotchas: []string{"g2", "g1"}, Result: "done"},
		Commands: []Command{{Cmd: "go test", ExitCode: 1}, {Cmd: "go test", ExitCode: 0}},
		Tests:    []Test{{Name: "T1", Status: TestPass}, {Name: "T3", Status: TestSkip}},
		Errors:   []Error{{Signature: "aaa", Excerpt: "second text", File: "x.go", Line: 3}, {Signature: "aaa", File: "x.go", Line: 4}},
	}
	m := Merge(old, new)
	checks := []struct{ what, got, want string }{
		{"task ids: old order, then new", strings.Join(m.TaskIDs, ","), "a,b,c"},
		{"empty new scalar keeps old", m.SessionID + "|" + m.Agent.Runtime + "|" + m.Digest.Intent, "s|codex|old intent"},
		{"non-empty new scalar wins", m.Agent.Model + "|" + m.Digest.Result + "|" + m.Status, "m2|done|success"},
		{"started keeps the earlier", m.StartedAt.Format(time.Kitchen), "9:59AM"},
		{"ended keeps the later", m.EndedAt.Format(time.Kitchen), "11:00AM"},
		{"gotchas unioned", strings.Join(m.Digest.Gotchas, ","), "g1,g2"},
		{"commands by cmd and exit code", cmds(m.Commands), "go test=1,go test=0"},
		{"tests by name, newer status", tests(m.Tests), "T1=pass,T2=pass,T3=skip"},
		{"errors by signature, file and line", errs(m.Errors), "aaa x.go:3 first,aaa x.go:4 "},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
	if old.Tests[0].Status != TestFail || len(old.TaskIDs) != 2 {
		t.Error("Merge changed its old argument")
	}
}

func TestMergeStatusUnknownNeverReplacesKnown(t *testing.T) {
	m := Merge(&Record{Status: StatusSuccess}, &Record{Status: StatusUnknown})
	if m.Status != StatusSuccess {
		t.Errorf("got %q", m.Status)
	}
	m = Merge(&Record{}, &Record{Status: StatusUnknown})
	if m.Status != StatusUnknown {
		t.Errorf("unknown over nothing: got %q", m.Status)
	}
}

func TestMergeErrorsWithoutSignatureByText(t *testing.T) {
	m := Merge(&Record{Errors: []Error{{Excerpt: "a"}}}, &Record{Errors: []Error{{Excerpt: "b"}, {Excerpt: "a"}}})
	if got := errs(m.Errors); got != " :0 a, :0 b" {
		t.Errorf("got %q", got)
	}
}

func TestMergeUnknownKeys(t *testing.T) {
	a, _ := Decode([]byte(`{"run_id":"r-1","x":1,"y":2,"digest":{"k":1}}`), "a")
	b, _ := Decode([]byte(`{"run_id":"r-1","y":3,"z":4,"digest":{"j":2}}`), "b")
	m := Merge(a, b)
	got := string(Encode(m))
	for _, want := range []string{"\"x\": 1,\n  \"y\": 3,\n  \"z\": 4\n}", "\"k\": 1,\n    \"j\": 2\n  }"} {
		if !strings.Contains(got, want) {
			t.Errorf("merged file lacks %q:\n%s", want, got)
		}
	}
}

func TestRunIDs(t *testing.T) {
	if got := SessionRunID("claude-code", "abc"); got != SessionRunID("claude-code", "abc") || len(got) != 12 || got == SessionRunID("codex", "abc") {
		t.Errorf("session run id %q: want r- and 10 hex digits, stable, differing by runtime", got)
	}
	id, err := NewRunID(strings.NewReader("0123456789"))
	again, _ := NewRunID(strings.NewReader("0123456789"))
	if err != nil || !ValidRunID(id) || len(id) != 12 || !strings.HasPrefix(id, "r-") || id != again || strings.ToLower(id) != id {
		t.Errorf("NewRunID = %q, %v", id, err)
	}
	for _, bad := range []string{"", "-a", ".a", "a/b", strings.Repeat("a", 65), "a b"} {
		if ValidRunID(bad) {
			t.Errorf("ValidRunID(%q) = true", bad)
		}
	}
}

func TestCut(t *testing.T) {
	if got := Cut("héllo", 2); got != "hé" {
		t.Errorf("got %q", got)
	}
	if got := Cut(strings.Repeat("é", 400), MaxExcerpt); len([]rune(got)) != MaxExcerpt {
		t.Errorf("cut to %d runes", len([]rune(got)))
	}
}

func cmds(cs []Command) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Cmd+"="+strconv.Itoa(c.ExitCode))
	}
	return strings.Join(s, ",")
}

func tests(ts []Test) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name+"="+t.Status)
	}
	return strings.Join(s, ",")
}

func errs(es []Error) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Signature+" "+e.File+":"+strconv.Itoa(e.Line)+" "+e.Excerpt)
	}
	return strings.Join(s, ",")
}
