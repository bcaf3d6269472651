package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHookInput(t *testing.T) {
	t.Parallel()
	const claudePath = "/home/dev/.claude/projects/-home-dev-app/5b0c2f1e-8d3a-4c7e-9f21-6a4d0e7b9c13.jsonl"
	const claudeSession = "5b0c2f1e-8d3a-4c7e-9f21-6a4d0e7b9c13"
	const codexSession = "019ab3c4-7d2e-7f10-8a4b-3c5d6e7f8091"
	for file, want := range map[string]HookInput{
		"claude-precompact.json": {Runtime: RuntimeClaudeCode, Event: "PreCompact", SessionID: claudeSession,
			TranscriptPath: claudePath, Cwd: "/home/dev/app", Trigger: "auto"},
		"claude-postcompact.json": {Runtime: RuntimeClaudeCode, Event: "PostCompact", SessionID: claudeSession,
			TranscriptPath: claudePath, Cwd: "/home/dev/app", Trigger: "manual",
			CompactSummary: "The user asked to fix the ledger parser dropping the last fact; parse.go was fixed and TestParseNoTrailingNewline added."},
		"claude-sessionend.json": {Runtime: RuntimeClaudeCode, Event: "SessionEnd", SessionID: claudeSession,
			TranscriptPath: claudePath, Cwd: "/home/dev/app/internal/ledger", Reason: "prompt_input_exit"},
		"claude-stop.json": {Runtime: RuntimeClaudeCode, Event: "Stop", SessionID: claudeSession,
			TranscriptPath: claudePath, Cwd: "/home/dev/app", LastAssistantMessage: "Fixed: parseFacts now keeps the last fact."},
		"codex-precompact.json": {Runtime: RuntimeCodex, Event: "PreCompact", SessionID: codexSession,
			TurnID:         "019ab3c4-8e01-7c22-9d3e-4f5a6b7c8d01",
			TranscriptPath: "/home/dev/.codex/sessions/2026/11/23/rollout-2026-11-23T11-00-00-019ab3c4-7d2e-7f10-8a4b-3c5d6e7f8091.jsonl",
			Cwd:            "/home/dev/app", Model: "gpt-5.5", Trigger: "auto"},
		"codex-stop-null-transcript.json": {Runtime: RuntimeCodex, Event: "Stop", SessionID: codexSession,
			TurnID: "019ab3c4-8e01-7c22-9d3e-4f5a6b7c8d01", Cwd: "/home/dev/app", Model: "gpt-5.5",
			LastAssistantMessage: "Fixed splitRows."},
		"gemini-precompress.json": {Runtime: RuntimeGemini, Event: "PreCompress", SessionID: "f2a9c8e1-4b7d-4e2a-9c3f-8d1e6b5a4c2d",
			TranscriptPath: "/home/dev/.gemini/tmp/3c9d5e/chats/session-2026-11-23T12-00-f2a9c8e1.json",
			Cwd:            "/home/dev/app", Trigger: "auto"},
		"gemini-sessionend.json": {Runtime: RuntimeGemini, Event: "SessionEnd", SessionID: "f2a9c8e1-4b7d-4e2a-9c3f-8d1e6b5a4c2d",
			Cwd: "/home/dev/app", Reason: "exit"},
		"cursor-precompact.json": {Runtime: RuntimeCursor, Event: "preCompact", SessionID: "c0ffee12-3456-4789-abcd-ef0123456789",
			Cwd: "/home/dev/app", WorkspaceRoots: []string{"/home/dev/app"}, Model: "claude-4.5-sonnet", Trigger: "auto"},
		"cursor-sessionend.json": {Runtime: RuntimeCursor, Event: "sessionEnd", SessionID: "c0ffee12-3456-4789-abcd-ef0123456789",
			TranscriptPath: "/home/dev/.cursor/projects/home-dev-app/agent-transcripts/c0ffee12-3456-4789-abcd-ef0123456789.txt",
			Cwd:            "/home/dev/app", WorkspaceRoots: []string{"/home/dev/app", "/home/dev/lib"}, Model: "gpt-5.5", Reason: "user_close"},
	} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "hooks", file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ParseHookInput(f)
			if err != nil {
				t.Fatalf("ParseHookInput: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParseHookInput:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseHookInputEmptyIsNoInput(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "\n", "  \r\n\t "} {
		got, err := ParseHookInput(strings.NewReader(in))
		if err != nil {
			t.Errorf("ParseHookInput(%q): %v, want no error", in, err)
		}
		if want := (HookInput{Runtime: RuntimeUnknown}); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseHookInput(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestParseHookInputSkipsABOM(t *testing.T) {
	t.Parallel()
	got, err := ParseHookInput(strings.NewReader("\xef\xbb\xbf" + `{"session_id":"a","transcript_path":"/home/u/.claude/projects/-x/a.jsonl"}` + "\r\n"))
	if err != nil || got.SessionID != "a" || got.Runtime != RuntimeClaudeCode {
		t.Errorf("ParseHookInput with a BOM = %+v, %v", got, err)
	}
}

func TestParseHookInputGarbageIsAnError(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"not json",
		`{"session_id":"abc"`,                     // cut off
		`["session_id"]`,                          // not an object
		`"PreCompact"`,                            // not an object
		`{"session_id":"a"} {"session_id":"b"}`,   // two documents
		`{"session_id":"a"} trailing`,             // garbage after the object
		`{"session_id":12,"hook_event_name":"x"}`, // a field of the wrong type
		"\xff\xfe{}",
	} {
		if got, err := ParseHookInput(strings.NewReader(in)); err == nil {
			t.Errorf("ParseHookInput(%q) = %+v, want an error", in, got)
		} else if !strings.HasPrefix(err.Error(), "hook input: ") {
			t.Errorf("ParseHookInput(%q) error %q does not say it is the hook input", in, err)
		}
	}
}

func TestParseHookInputRuntimeGuess(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"session_id":"a","transcript_path":"/home/u/.claude/projects/-x/a.jsonl","hook_event_name":"PreCompact"}`:                 RuntimeClaudeCode,
		`{"session_id":"a","transcript_path":"C:\\Users\\u\\.claude\\projects\\-x\\a.jsonl","hook_event_name":"SessionEnd"}`:        RuntimeClaudeCode,
		`{"session_id":"a","transcript_path":"/x/t.jsonl","hook_event_name":"PostCompact","compact_summary":"s"}`:                   RuntimeClaudeCode,
		`{"session_id":"a","transcript_path":"/srv/codex-home/sessions/2026/11/23/rollout-2026-11-23T10-00-00-a.jsonl"}`:            RuntimeCodex,
		`{"session_id":"a","turn_id":"t","transcript_path":null,"hook_event_name":"PreCompact","trigger":"manual","model":"gpt-5"}`: RuntimeCodex,
		`{"session_id":"a","hook_event_name":"AfterAgent"}`:                                                                         RuntimeGemini,
		`{"session_id":"a","transcript_path":"/home/u/.gemini/tmp/x/chats/s.json"}`:                                                 RuntimeGemini,
		`{"conversation_id":"c","hook_event_name":"stop"}`:                                                                          RuntimeCursor,
		`{"session_id":"a","transcript_path":"/tmp/t.jsonl","hook_event_name":"SessionEnd"}`:                                        RuntimeUnknown,
		`{}`: RuntimeUnknown,
	} {
		got, err := ParseHookInput(strings.NewReader(in))
		if err != nil {
			t.Errorf("ParseHookInput(%s): %v", in, err)
			continue
		}
		if got.Runtime != want {
			t.Errorf("ParseHookInput(%s).Runtime = %q, want %q", in, got.Runtime, want)
		}
	}
}

func TestParseHookInputTooLarge(t *testing.T) {
	t.Parallel()
	big := `{"session_id":"a","last_assistant_message":"` + strings.Repeat("x", maxHookInput) + `"}`
	if _, err := ParseHookInput(strings.NewReader(big)); err == nil {
		t.Error("ParseHookInput of an input over the limit succeeded, want an error")
	}
}
