package cli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A bug in the hook adapter must not break the agent: the panic is caught,
// reported as one warning line, and the process exits 0; a session start
// still prints its (empty) envelope, which Codex and Gemini CLI require.
func TestHookRecoversFromAPanic(t *testing.T) {
	for event, stdout := range map[string]string{
		"session-start": `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}` + "\n",
		"pre-compact":   "",
	} {
		var out, errb strings.Builder
		env := &Env{
			In: strings.NewReader(`{"session_id":"s-1","hook_event_name":"x"}`), Out: &out, Err: &errb,
			Getenv: func(string) string { return "" },
			Getwd:  func() (string, error) { panic("boom") },
			Now:    func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) },
		}
		if code := Main(context.Background(), []string{"hook", "claude", event}, env); code != 0 {
			t.Errorf("%s: exit code %d, want 0", event, code)
		}
		if out.String() != stdout {
			t.Errorf("%s: stdout %q, want %q", event, out.String(), stdout)
		}
		if want := "memctl: warning: hook: internal error: boom (please report this)\n"; errb.String() != want {
			t.Errorf("%s: stderr %q, want %q", event, errb.String(), want)
		}
	}
}

func TestOneLineWriter(t *testing.T) {
	var b strings.Builder
	w := &oneLineWriter{w: &b}
	for _, s := range []string{"memctl: ", "first\nsecond", "\nthird\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "memctl: first\n" {
		t.Errorf("got %q", b.String())
	}
}

// The agent ends a hook that takes too long with SIGTERM (ctx ends): the
// hook answers at once with what it prints when it has nothing better,
// even when its work is stuck somewhere that does not watch ctx.
func TestHookReturnsWhenItsContextEnds(t *testing.T) {
	for _, c := range []struct{ runtime, event, stdout string }{
		{"claude", "session-start", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}` + "\n"},
		{"codex", "stop", `{"continue":true}` + "\n"},
		{"claude", "session-end", ""},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		stuck := make(chan struct{})
		var out, errb strings.Builder
		env := &Env{
			In: strings.NewReader(`{"session_id":"s-1"}`), Out: &out, Err: &errb,
			Getenv: func(string) string { return "" },
			Getwd: func() (string, error) {
				cancel()
				<-stuck // a read that never returns
				return "", nil
			},
			Now: func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) },
		}
		if code := Main(ctx, []string{"hook", c.runtime, c.event}, env); code != 0 {
			t.Errorf("%s %s: exit code %d, want 0", c.runtime, c.event, code)
		}
		if out.String() != c.stdout {
			t.Errorf("%s %s: stdout %q, want %q", c.runtime, c.event, out.String(), c.stdout)
		}
		close(stuck)
	}
}
