package runs

import (
	"context"
	"slices"
	"testing"
)

// A command a tool hook recorded without its exit status (Codex) gives way
// to the same command as a later flush reads it from the transcript; one
// the flush does not know, or knows no better, stays.
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
	id := SessionRunID("codex", "s1")
	flushed := &Record{RunID: id, SessionID: "s1", Commands: []Command{{Cmd: "go test ./...", ExitCode: 1}, {Cmd: "make serve", ExitCode: -1}}}
	if _, _, err := s.Put(flushed, PutOptions{Now: day0, Merge: mergeFlush}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{{Cmd: "make serve", ExitCode: -1}, {Cmd: "ls", ExitCode: -1}, {Cmd: "go test ./...", ExitCode: 1}}
	got := e.Record.Commands
	if !slices.EqualFunc(got, want, func(a, b Command) bool { return a.Cmd == b.Cmd && a.ExitCode == b.ExitCode }) {
		t.Errorf("commands %+v, want %+v", got, want)
	}
}
