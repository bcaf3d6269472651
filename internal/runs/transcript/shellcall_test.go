package transcript

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestShellCall(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	gemini := func(content string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"llmContent": content, "returnDisplay": "x"})
		return b
	}
	for _, c := range []struct {
		name    string
		runtime string
		in      HookInput
		want    ShellRun
		ok      bool
	}{
		{"claude ok", "claude", HookInput{Event: "PostToolUse", ToolName: "Bash", ToolInput: raw(`{"command":"go vet ./..."}`)},
			ShellRun{Command: "go vet ./..."}, true},
		{"claude failure", "claude", HookInput{Event: "PostToolUseFailure", ToolName: "Bash", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolError: "Exit code 2\n--- FAIL: TestX\nFAIL\tpkg"}, ShellRun{"go test ./...", 2, true, "--- FAIL: TestX\nFAIL\tpkg"}, true},
		{"claude failure without a status", "claude", HookInput{Event: "PostToolUseFailure", ToolName: "Bash", ToolInput: raw(`{"command":"x"}`),
			ToolError: "could not start the shell"}, ShellRun{"x", -1, true, "could not start the shell"}, true},
		{"argv words", "claude", HookInput{Event: "PostToolUse", ToolName: "exec_command", ToolInput: raw(`{"cmd":["go","build","./..."]}`)},
			ShellRun{Command: "go build ./..."}, true},
		{"an edit", "claude", HookInput{Event: "PostToolUse", ToolName: "Edit", ToolInput: raw(`{"file_path":"a.go"}`)}, ShellRun{}, false},
		{"no command", "claude", HookInput{Event: "PostToolUse", ToolName: "Bash", ToolInput: raw(`{}`)}, ShellRun{}, false},
		{"codex: output, status unknown", "codex", HookInput{Event: "PostToolUse", ToolName: "Bash", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolResponse: raw(`"--- FAIL: TestX\nFAIL\tpkg\n"`)}, ShellRun{"go test ./...", -1, false, "--- FAIL: TestX\nFAIL\tpkg"}, true},
		{"gemini ok", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"ls"}`),
			ToolResponse: gemini("<untrusted_context>\nOutput: a.go\nProcess Group PGID: 4242\n</untrusted_context>")}, ShellRun{Command: "ls"}, true},
		{"gemini failure", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolResponse: gemini("<untrusted_context>\nOutput: Error: not what Gemini says\n--- FAIL: TestX\nExit Code: 1\nProcess Group PGID: 4242\n</untrusted_context>")},
			ShellRun{"go test ./...", 1, true, "Error: not what Gemini says\n--- FAIL: TestX"}, true},
		{"gemini: the program's own last line is Error:", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"./build"}`),
			ToolResponse: gemini("<untrusted_context>\nOutput: compiling\nError: missing symbol\nExit Code: 2\nProcess Group PGID: 4242\n</untrusted_context>")},
			ShellRun{"./build", 2, true, "compiling\nError: missing symbol"}, true},
		{"gemini timeout", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolResponse: gemini("<untrusted_context>\nCommand was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled.\n</untrusted_context>")},
			ShellRun{"go test ./...", -1, true, "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled."}, true},
		{"gemini cancelled by the user", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"sleep 99"}`),
			ToolResponse: gemini("Command was cancelled by user before it could complete. There was no output before it was cancelled.")},
			ShellRun{Command: "sleep 99", ExitCode: -1}, true},
		{"gemini in the background", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"make serve"}`),
			ToolResponse: gemini("Command moved to background (PID: 77). Output hidden. Press Ctrl+B to view.")},
			ShellRun{Command: "make serve", ExitCode: -1}, true},
		{"gemini killed by a signal", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"./crash"}`),
			ToolResponse: gemini("<untrusted_context>\nOutput: (empty)\nSignal: SIGSEGV\nProcess Group PGID: 5\n</untrusted_context>")},
			ShellRun{"./crash", -1, true, ""}, true},
		{"gemini before v0.27", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"false"}`),
			ToolResponse: gemini("Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7")},
			ShellRun{"false", 1, true, ""}, true},
		{"gemini could not run it", "gemini", HookInput{Event: "AfterTool", ToolName: "run_shell_command", ToolInput: raw(`{"command":"x"}`),
			ToolResponse: raw(`{"llmContent":"Output: (empty)","error":{"message":"spawn ENOENT","type":"shell_execute_error"}}`)},
			ShellRun{"x", -1, true, "spawn ENOENT"}, true},
		{"cursor ok", "cursor", HookInput{Event: "postToolUse", ToolName: "Shell", ToolInput: raw(`{"command":"ls"}`),
			ToolResponse: raw(`"{\"output\":\"a.go\",\"exitCode\":0}"`)}, ShellRun{Command: "ls"}, true},
		{"cursor failure", "cursor", HookInput{Event: "postToolUseFailure", ToolName: "Shell", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolError: "--- FAIL: TestX\nFAIL\tpkg"}, ShellRun{"go test ./...", -1, true, "--- FAIL: TestX\nFAIL\tpkg"}, true},
		{"cursor denied", "cursor", HookInput{Event: "postToolUseFailure", ToolName: "Shell", ToolInput: raw(`{"command":"rm -rf /"}`),
			ToolError: "denied", ToolNotRun: true}, ShellRun{}, false},
		{"opencode failure", "opencode", HookInput{Event: "post-tool-use", ToolName: "bash", ToolInput: raw(`{"command":"go test ./..."}`),
			ToolResponse: raw(`{"exit":1,"output":"--- FAIL: TestX\n"}`)}, ShellRun{"go test ./...", 1, true, "--- FAIL: TestX"}, true},
		{"opencode cut short", "opencode", HookInput{Event: "post-tool-use", ToolName: "bash", ToolInput: raw(`{"command":"sleep 999"}`),
			ToolResponse: raw(`{"exit":null,"output":""}`)}, ShellRun{Command: "sleep 999", ExitCode: -1}, true},
	} {
		got, ok := ShellCall(c.in, c.runtime)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: ShellCall = %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// Cursor's failure and output fields land where every runtime's do.
func TestParseHookInputCursorTool(t *testing.T) {
	t.Parallel()
	in, err := ParseHookInput(strings.NewReader(`{"conversation_id":"c1","workspace_roots":["/w"],"hook_event_name":"postToolUseFailure",` +
		`"tool_name":"Shell","tool_input":{"command":"x"},"error_message":"boom","failure_type":"timeout"}`))
	if err != nil || in.ToolError != "boom" || in.ToolNotRun || in.SessionID != "c1" || in.Cwd != "/w" {
		t.Errorf("%+v %v", in, err)
	}
	in, err = ParseHookInput(strings.NewReader(`{"conversation_id":"c1","hook_event_name":"postToolUse","tool_name":"Shell",` +
		`"tool_output":"{\"output\":\"\",\"exitCode\":0}","failure_type":"permission_denied"}`))
	if err != nil || string(in.ToolResponse) != `"{\"output\":\"\",\"exitCode\":0}"` || !in.ToolNotRun {
		t.Errorf("%+v %v", in, err)
	}
}

func TestToolFailed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   HookInput
		want bool
	}{
		{HookInput{Event: "PostToolUseFailure"}, true},
		{HookInput{Event: "postToolUseFailure"}, true},
		{HookInput{Event: "postToolUse", ToolNotRun: true}, true},
		{HookInput{Event: "AfterTool", ToolResponse: json.RawMessage(`{"llmContent":"x","error":{"message":"no match","type":"edit_no_occurrence_found"}}`)}, true},
		{HookInput{Event: "AfterTool", ToolResponse: json.RawMessage(`{"llmContent":"Successfully modified file"}`)}, false},
		{HookInput{Event: "PostToolUse", ToolResponse: json.RawMessage(`{"filePath":"a.go","success":true}`)}, false},
		{HookInput{Event: "PostToolUse", ToolResponse: json.RawMessage(`"output text"`)}, false},
		{HookInput{Event: "postToolUse", ToolResponse: json.RawMessage(`"{\"success\":true}"`)}, false},
	} {
		if got := ToolFailed(c.in); got != c.want {
			t.Errorf("ToolFailed(%s %s) = %v, want %v", c.in.Event, c.in.ToolResponse, got, c.want)
		}
	}
}
