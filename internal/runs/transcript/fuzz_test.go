package transcript

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// FuzzParse: any transcript, whatever its format, is read without a panic
// into a session whose texts keep to their documented limits: the first
// request, the last answer and the compact summary at most 8 KiB, an error
// text or a command's output at most 2 KiB; errors without repeats, test
// statuses pass, fail or skip, exit codes -1 or more, lists never nil.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"claude-session.jsonl", "codex-rollout.jsonl"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		// A few lines each: the fuzzer mutates and minimises small
		// inputs much faster (testdata/fuzz/FuzzParse has more).
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[:min(4, len(lines))], nil), true)
		f.Add(bytes.Join(lines[len(lines)-min(4, len(lines)):], nil), false)
	}
	big := strings.Repeat("é", 6000) // 12,000 bytes, cut inside no character
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"`+big+`"}}`+"\r\n"+`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"`+big+`"}]}}`+"\r\n"), true)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n"+
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\n`+strings.Repeat("--- FAIL: TestX (0.00s)\\n", 200)+`"}]}}`+"\n"), true)
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n<<<<<<< ours\n{\"type\":\n"), false)
	f.Add([]byte(`{"type":"user","message":{"content":[[[[[[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]]]]]}}`+"\n"+`{"timestamp":"99999999999999999999"}`), true)
	f.Fuzz(func(t *testing.T, data []byte, claude bool) {
		runtime := RuntimeCodex
		if claude {
			runtime = RuntimeClaudeCode
		}
		s, err := Parse(context.Background(), bytes.NewReader(data), "t.jsonl", runtime, Options{Root: "/home/dev/app"})
		if s == nil {
			if err == nil {
				t.Fatal("no session and no error")
			}
			return
		}
		for name, text := range map[string]string{"FirstUserText": s.FirstUserText, "LastAssistantText": s.LastAssistantText, "CompactSummary": s.CompactSummary} {
			if len(text) > maxText {
				t.Fatalf("%s is %d bytes, over %d", name, len(text), maxText)
			}
		}
		for i, e := range s.Errors {
			if len(e) > maxExcerpt {
				t.Fatalf("error %d is %d bytes, over %d", i, len(e), maxExcerpt)
			}
			if slices.Contains(s.Errors[:i], e) {
				t.Fatalf("error %d repeats an earlier one: %q", i, e)
			}
		}
		for i, c := range s.Commands {
			if len(c.Output) > maxExcerpt {
				t.Fatalf("command %d's output is %d bytes, over %d", i, len(c.Output), maxExcerpt)
			}
			if c.ExitCode < -1 {
				t.Fatalf("command %d's exit code is %d", i, c.ExitCode)
			}
		}
		for _, tc := range s.Tests {
			if tc.Status != "pass" && tc.Status != "fail" && tc.Status != "skip" {
				t.Fatalf("test %q has status %q", tc.Name, tc.Status)
			}
		}
		if s.FilesChanged == nil || s.Commands == nil || s.Tests == nil || s.Errors == nil || s.TaskClaims == nil || s.TaskCloses == nil {
			t.Fatalf("a nil list in %+v", s)
		}
	})
}
