package cli

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/runs"
)

// BenchmarkWriteRunList5k is runs --json's writing of 5,000 records.
func BenchmarkWriteRunList5k(b *testing.B) {
	entries := make([]runs.Entry, 5000)
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for i := range entries {
		entries[i] = runsEntry(&runs.Record{RunID: fmt.Sprintf("r-%010d", i), SessionID: "sess", TaskIDs: []string{"app-1"},
			Agent: runs.Agent{Runtime: "claude-code", Model: "claude"}, Repo: "github.com/acme/app", Branch: "main",
			StartedAt: start, EndedAt: start, Status: runs.StatusFailure,
			Digest:       runs.Digest{Intent: "make the importer resumable", Gotchas: []string{"TZ=UTC"}},
			FilesChanged: []string{"a.go", "b.go"}, Commands: []runs.Command{{Cmd: "go test ./...", ExitCode: 1}},
			Tests: []runs.Test{{Name: "TestX", Status: "fail"}}, Errors: []runs.Error{{Signature: "abc", Excerpt: "boom", File: "a.go", Line: 3}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := writeRunList(io.Discard, entries); err != nil {
			b.Fatal(err)
		}
	}
}
