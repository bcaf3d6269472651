package cli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A bug in flush must not break the agent's hook: the panic is caught,
// reported as a warning, and the process exits 0.
func TestFlushRecoversFromAPanic(t *testing.T) {
	var out, errb strings.Builder
	env := &Env{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { panic("boom") },
		Now:    func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) },
	}
	if code := Main(context.Background(), []string{"flush"}, env); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if out.String() != "" {
		t.Errorf("stdout %q, want nothing", out.String())
	}
	if want := "memctl: warning: flush: internal error: boom; the session may not be recorded (please report this)\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
