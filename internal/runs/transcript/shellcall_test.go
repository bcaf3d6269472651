package transcript

import (
	"encoding/json"
	"testing"
)

func TestShellCall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      HookInput
		cmd     string
		exit    int
		errText string
		ok      bool
	}{
		{HookInput{Event: "PostToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"go vet ./..."}`)}, "go vet ./...", 0, "", true},
		{HookInput{Event: "PostToolUseFailure", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"go test ./..."}`),
			ToolError: "Exit code 2\n--- FAIL: TestX\nFAIL\tpkg"}, "go test ./...", 2, "--- FAIL: TestX\nFAIL\tpkg", true},
		{HookInput{Event: "PostToolUseFailure", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"x"}`),
			ToolError: "could not start the shell"}, "x", -1, "could not start the shell", true},
		{HookInput{Event: "PostToolUse", ToolName: "exec_command", ToolInput: json.RawMessage(`{"cmd":["go","build","./..."]}`)}, "go build ./...", 0, "", true},
		{HookInput{Event: "PostToolUse", ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"a.go"}`)}, "", 0, "", false},
		{HookInput{Event: "PostToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{}`)}, "", 0, "", false},
	} {
		cmd, exit, errText, ok := ShellCall(c.in)
		if cmd != c.cmd || exit != c.exit || errText != c.errText || ok != c.ok {
			t.Errorf("ShellCall(%s %s) = %q %d %q %v, want %q %d %q %v", c.in.ToolName, c.in.ToolInput, cmd, exit, errText, ok, c.cmd, c.exit, c.errText, c.ok)
		}
	}
}
