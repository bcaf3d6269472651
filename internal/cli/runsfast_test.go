package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/runs"
)

// TestWriteRunListIsWriteJSON: runs --json writes with writeRunList, which
// must give exactly what writeJSON gives for the documented type
// (runListJSON of listedRunJSON), for every kind of text (escapes, control
// characters, invalid UTF-8, U+2028, HTML characters), every empty or
// unknown field, and times with and without fractions or a zone.
func TestWriteRunListIsWriteJSON(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for b := range 0x80 {
		all.WriteByte(byte(b))
	}
	hostile := all.String() + "\xff\xfe é 漢 \u2028\u2029 <a href=\"x\">&amp;</a> \U0001F600"
	start := time.Date(2026, 11, 23, 10, 0, 0, 500, time.FixedZone("X", 3600))
	full := &runs.Record{RunID: "r-1", SessionID: hostile, TaskIDs: []string{"a", hostile},
		Agent: runs.Agent{Runtime: "claude-code", Model: hostile},
		Repo:  "github.com/acme/app", Branch: "main", CommitSHA: "abc", StartedAt: start, Status: runs.StatusFailure,
		Digest:       runs.Digest{Intent: hostile, Changes: []string{"c"}, Decisions: []string{}, Gotchas: []string{hostile, "g"}, NextSteps: []string{"n"}},
		FilesChanged: []string{"x.go"}, Commands: []runs.Command{{Cmd: hostile, ExitCode: -1}, {Cmd: "make"}},
		Tests: []runs.Test{{Name: "T", Status: "pass"}}, ArtifactRefs: []string{},
		Errors: []runs.Error{{Signature: "s", Excerpt: hostile, File: "f", Line: 12}, {}}}
	ended := &runs.Record{RunID: "r-2", EndedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Status: runs.StatusSuccess}
	summarised, err := runs.Decode([]byte(`{"run_id":"r-3","digest":{"intent":"i","compact_summary":"we \"fixed\" it\n<b>"}}`), "r-3.json")
	if err != nil || summarised.CompactSummary() == "" {
		t.Fatalf("decode a record with a compact summary: %v", err)
	}
	for _, tc := range []struct {
		name    string
		entries []runs.Entry
	}{
		{"none", nil},
		{"empty record", []runs.Entry{runsEntry(nil)}},
		{"full", []runs.Entry{runsEntry(full), runsEntry(nil), runsEntry(ended), runsEntry(summarised)}},
	} {
		want := runListJSON{SchemaVersion: schemaVersion, Runs: []runJSON{}}
		for _, e := range tc.entries {
			want.Runs = append(want.Runs, listedRunJSON(e))
		}
		var w, got bytes.Buffer
		if err := writeJSON(&w, want); err != nil {
			t.Fatal(err)
		}
		if err := writeRunList(&got, tc.entries); err != nil {
			t.Fatal(err)
		}
		if got.String() != w.String() {
			t.Errorf("%s: writeRunList differs from writeJSON:\n%s\nwant\n%s", tc.name, got.String(), w.String())
		}
	}
}

func runsEntry(r *runs.Record) runs.Entry {
	if r == nil {
		r = &runs.Record{RunID: "r-0"}
	}
	return runs.Entry{Path: ".ledger/runs/2026-11/" + r.RunID + ".json", Record: r}
}
