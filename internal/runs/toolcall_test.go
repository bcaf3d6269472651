package runs

import (
	"context"
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/runs/signature"
)

// A command a tool hook recorded without its exit status (Codex) gives way
// to the same command as a later flush reads it from the transcript; one
// the flush does not know, or knows no better, stays. An error the hook
// recorded without a place gives way to the flush's of that signature.
func TestFlushTakesOverCommandsWithoutStatus(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, c := range []struct {
		cmd  string
		exit int
	}{{"go test ./...", -1}, {"make serve", -1}, {"ls", -1}} {
		if _, err := RecordToolCall(context.Background(), ToolCallRequest{SessionID: "s1", Runtime: "codex", Command: c.cmd, ExitCode: c.exit,
			Store: s, Context: Context{Now: day0}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RecordToolCall(context.Background(), ToolCallRequest{SessionID: "s1", Runtime: "codex", Command: "go vet ./...", ExitCode: -1,
		ErrorText: "a.go:12:2: undefined: SchemaV2", Store: s, Context: Context{Now: day0}}); err != nil {
		t.Fatal(err)
	}
	sig := signature.Of("a.go:12:2: undefined: SchemaV2").Hash
	id := SessionRunID("codex", "s1")
	flushed := &Record{RunID: id, SessionID: "s1", Commands: []Command{{Cmd: "go test ./...", ExitCode: 1}, {Cmd: "make serve", ExitCode: -1}, {Cmd: "go vet ./...", ExitCode: 1}},
		Errors: []Error{{Signature: sig, Excerpt: "a.go:12:2: undefined: SchemaV2", File: "a.go", Line: 12}, {Signature: "bbbbbbbbbbbb", Excerpt: "other"}}}
	if _, _, err := s.Put(flushed, PutOptions{Now: day0, Merge: mergeFlush}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{{Cmd: "make serve", ExitCode: -1}, {Cmd: "ls", ExitCode: -1}, {Cmd: "go test ./...", ExitCode: 1}, {Cmd: "go vet ./...", ExitCode: 1}}
	got := e.Record.Commands
	if !slices.EqualFunc(got, want, func(a, b Command) bool { return a.Cmd == b.Cmd && a.ExitCode == b.ExitCode }) {
		t.Errorf("commands %+v, want %+v", got, want)
	}
	// The hook's error, without a place, gave way to the flush's.
	if errs := e.Record.Errors; len(errs) != 2 || errs[0].Signature != sig || errs[0].File != "a.go" || errs[1].Signature != "bbbbbbbbbbbb" {
		t.Errorf("errors %+v, want the flush's two", errs)
	}
}
