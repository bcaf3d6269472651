package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/runs"
)

// The triggered hooks run before and after every tool call: in process,
// on a workspace with n run records (a fifth of them failed, each run
// touching one to four of 500 files), pre-tool-use for a file nothing
// failed in and for one with failures (a new session each time, so that
// it is said), post-tool-use of a failing command in a session, the
// first post-tool-use of a session (no record carries it yet), and the
// usual turn of an agent: a command, then an edit (post-tool-use, then
// pre-tool-use, which finds the hook index the command's write kept
// current).
func BenchmarkPreToolUseQuiet1k(b *testing.B) {
	benchTrigger(b, 1_000, "pre-tool-use", "quiet/never.go", false)
}
func BenchmarkPreToolUseQuiet5k(b *testing.B) {
	benchTrigger(b, 5_000, "pre-tool-use", "quiet/never.go", false)
}
func BenchmarkPreToolUseWarn1k(b *testing.B) {
	benchTrigger(b, 1_000, "pre-tool-use", "pkg0/file0.go", true)
}
func BenchmarkPreToolUseWarn5k(b *testing.B) {
	benchTrigger(b, 5_000, "pre-tool-use", "pkg0/file0.go", true)
}
func BenchmarkPostToolUse5k(b *testing.B) { benchTrigger(b, 5_000, "post-tool-use", "", false) }
func BenchmarkPostToolUseFirst5k(b *testing.B) {
	benchTrigger(b, 5_000, "post-tool-use-first", "", false)
}
func BenchmarkPostThenPreToolUse5k(b *testing.B) {
	benchTrigger(b, 5_000, "post-then-pre", "quiet/never.go", false)
}

func benchTrigger(b *testing.B, n int, event, file string, wantOut bool) {
	env, dir := workspace(b)
	ws, err := env.workspace(true)
	if err != nil {
		b.Fatal(err)
	}
	store := app.RunStore(ws)
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		var files []string
		for k := range 1 + i%4 {
			files = append(files, fmt.Sprintf("pkg%d/file%d.go", (i*7+k*13)%50, (i+k)%10))
		}
		r := &runs.Record{RunID: fmt.Sprintf("r-%08x", i), SessionID: fmt.Sprintf("s%d", i), StartedAt: start.Add(time.Duration(i) * time.Hour),
			Status: runs.StatusSuccess, FilesChanged: files}
		if i%5 == 0 {
			r.Status = runs.StatusFailure
			r.Errors = []runs.Error{{Excerpt: fmt.Sprintf("%s:%d: undefined: Thing%d", files[0], i%200, i%40), File: files[0]}}
		}
		if _, _, err := store.Put(r, runs.PutOptions{Now: start.Add(time.Duration(n+1) * time.Hour)}); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(150 * time.Millisecond) // past the index's racy window
	post := func(session string) string {
		return `{"session_id":"` + session + `","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./..."},"error":"Exit code 1\n./schema.go:12:2: undefined: SchemaV2"}`
	}
	pre := func(i int) string {
		return fmt.Sprintf(`{"session_id":"b%d","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":%q}}`, i, filepath.Join(dir, file))
	}
	hook := func(event, input string) string {
		out := &bytes.Buffer{}
		env.In, env.Out, env.Err, env.StdinTTY = strings.NewReader(input), out, &bytes.Buffer{}, false
		Main(context.Background(), []string{"hook", "claude", event}, env)
		return out.String()
	}
	run := func(i int) string {
		switch event {
		case "post-tool-use":
			return hook(event, post("bench"))
		case "post-tool-use-first":
			return hook("post-tool-use", post(fmt.Sprint("first", i)))
		case "post-then-pre":
			hook("post-tool-use", post("bench"))
			return hook("pre-tool-use", pre(i))
		}
		return hook(event, pre(i))
	}
	if got := run(-1); (got != "") != wantOut {
		b.Fatalf("the hook printed %q", got)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		run(i)
		i++
	}
}
