package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/runs"
)

// TestAppendRunListIsWriteJSON: runs --json writes with appendRunList,
// which must give exactly what writeJSON gives for the documented type,
// for every kind of text (escapes, control characters, invalid UTF-8,
// U+2028, HTML characters) and every empty or absent field.
func TestAppendRunListIsWriteJSON(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for b := range 0x80 {
		all.WriteByte(byte(b))
	}
	hostile := all.String() + "\xff\xfe é 漢 \u2028\u2029 <a href=\"x\">&amp;</a> \U0001F600"
	line := 12
	start := time.Date(2026, 11, 23, 10, 0, 0, 500, time.UTC)
	for _, tc := range []struct {
		name string
		list []runJSON
	}{
		{"none", []runJSON{}},
		{"empty record", []runJSON{toRunJSON(runsEntry(nil))}},
		{"full", []runJSON{
			{RunID: "r-1", SessionID: hostile, TaskIDs: []string{"a", hostile}, Agent: runAgentJSON{Runtime: "claude-code", Model: hostile},
				Repo: "github.com/acme/app", Branch: "main", CommitSHA: "abc", StartedAt: &start, EndedAt: nil, Status: "failure",
				Digest:       runDigestJSON{Intent: hostile, Result: "", Changes: []string{"c"}, Decisions: []string{}, Gotchas: []string{hostile, "g"}, NextSteps: []string{"n"}},
				FilesChanged: []string{"x.go"}, Commands: []runCommandJSON{{Cmd: hostile, ExitCode: -1}, {Cmd: "make", ExitCode: 0}},
				Tests: []runTestJSON{{Name: "T", Status: "pass"}}, ArtifactRefs: []string{},
				Errors: []runErrorJSON{{Signature: "s", Excerpt: hostile, File: "f", Line: &line}, {Line: nil}}, Path: ".ledger/runs/x.json"},
			toRunJSON(runsEntry(nil)),
		}},
	} {
		var want bytes.Buffer
		if err := writeJSON(&want, runListJSON{SchemaVersion: schemaVersion, Runs: tc.list}); err != nil {
			t.Fatal(err)
		}
		if got := appendRunList(nil, tc.list); string(got) != want.String() {
			t.Errorf("%s: appendRunList differs from writeJSON:\n%s\nwant\n%s", tc.name, got, want.String())
		}
	}
}

func runsEntry(r *runs.Record) runs.Entry {
	if r == nil {
		r = &runs.Record{RunID: "r-0"}
	}
	return runs.Entry{Path: ".ledger/runs/2026-11/" + r.RunID + ".json", Record: r}
}
