package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HookInput is what an agent runtime's hook passes on stdin, in one shape
// for all runtimes. Fields a runtime does not send are empty.
type HookInput struct {
	Runtime              string   // RuntimeClaudeCode, RuntimeCodex, RuntimeGemini, RuntimeCursor or RuntimeUnknown: a guess
	Event                string   // hook_event_name: PreCompact, PostCompact, SessionEnd, Stop, PreCompress, preCompact, …
	SessionID            string   // session_id; Cursor's conversation_id when it sends no session_id
	TranscriptPath       string   // "" when the runtime has none (Codex and Cursor may send null)
	Cwd                  string   // cwd; Cursor's first workspace root when it sends no cwd
	Trigger              string   // manual or auto (PreCompact, PostCompact, PreCompress)
	Reason               string   // why a session ended (SessionEnd)
	Source               string   // startup, resume, clear, compact (SessionStart)
	Model                string   // Codex, Cursor, sometimes Claude Code
	TurnID               string   // Codex
	CompactSummary       string   // Claude Code's PostCompact
	LastAssistantMessage string   // Stop
	WorkspaceRoots       []string // Cursor
	// ToolName, ToolInput and ToolResponse are a tool event's (PreToolUse,
	// PostToolUse): the tool and its JSON arguments and result, as sent.
	ToolName     string
	ToolInput    json.RawMessage
	ToolResponse json.RawMessage
	// ToolError is a failed tool's error (Claude Code's
	// PostToolUseFailure: for a shell command "Exit code N" and its
	// output; Cursor's postToolUseFailure error_message).
	ToolError string
	// ToolNotRun: the tool never ran or was cut short by the user
	// (Cursor's permission_denied failures and interrupts).
	ToolNotRun bool
}

// maxHookInput bounds what ParseHookInput reads: hook inputs are small, a
// Stop's last message included.
const maxHookInput = 4 << 20

type hookJSON struct {
	SessionID            string          `json:"session_id"`
	ConversationID       string          `json:"conversation_id"`
	TranscriptPath       *string         `json:"transcript_path"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	Trigger              string          `json:"trigger"`
	Reason               string          `json:"reason"`
	Source               string          `json:"source"`
	Model                string          `json:"model"`
	TurnID               string          `json:"turn_id"`
	CompactSummary       *string         `json:"compact_summary"`
	CustomInstructions   *string         `json:"custom_instructions"`
	LastAssistantMessage *string         `json:"last_assistant_message"`
	WorkspaceRoots       []string        `json:"workspace_roots"`
	CursorVersion        string          `json:"cursor_version"`
	Timestamp            *string         `json:"timestamp"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	Error                *string         `json:"error"`
	ToolOutput           json.RawMessage `json:"tool_output"`   // Cursor's postToolUse
	ErrorMessage         *string         `json:"error_message"` // Cursor's postToolUseFailure
	FailureType          string          `json:"failure_type"`  // Cursor: error, timeout, permission_denied
	IsInterrupt          bool            `json:"is_interrupt"`  // Cursor
}

// ParseHookInput reads a hook's JSON from r. Unknown fields are ignored.
// Empty input (plain `memctl flush`) is no input: a HookInput with only
// Runtime set to RuntimeUnknown, and no error. Anything else that is not
// one JSON object is an error, for the caller to warn about.
func ParseHookInput(r io.Reader) (HookInput, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return HookInput{}, fmt.Errorf("hook input: %w", err)
	}
	if len(data) > maxHookInput {
		return HookInput{}, fmt.Errorf("hook input: longer than %d bytes", maxHookInput)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM, as Windows shells may pipe
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{Runtime: RuntimeUnknown}, nil
	}
	if !utf8.Valid(data) {
		return HookInput{}, errors.New("hook input: not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return HookInput{}, fmt.Errorf("hook input: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return HookInput{}, errors.New("hook input: more than one JSON value")
	}
	if raw[0] != '{' {
		return HookInput{}, errors.New("hook input: not a JSON object")
	}
	var h hookJSON
	if err := json.Unmarshal(raw, &h); err != nil {
		return HookInput{}, fmt.Errorf("hook input: %w", err)
	}
	in := HookInput{
		Event:                h.HookEventName,
		SessionID:            h.SessionID,
		TranscriptPath:       deref(h.TranscriptPath),
		Cwd:                  h.Cwd,
		Trigger:              h.Trigger,
		Reason:               h.Reason,
		Source:               h.Source,
		Model:                h.Model,
		TurnID:               h.TurnID,
		CompactSummary:       deref(h.CompactSummary),
		LastAssistantMessage: deref(h.LastAssistantMessage),
		WorkspaceRoots:       h.WorkspaceRoots,
		ToolName:             h.ToolName,
		ToolInput:            h.ToolInput,
		ToolResponse:         h.ToolResponse,
		ToolError:            deref(h.Error),
		ToolNotRun:           h.IsInterrupt || h.FailureType == "permission_denied",
	}
	if len(in.ToolResponse) == 0 || string(in.ToolResponse) == "null" {
		in.ToolResponse = h.ToolOutput
	}
	if in.ToolError == "" {
		in.ToolError = deref(h.ErrorMessage)
	}
	if in.SessionID == "" {
		in.SessionID = h.ConversationID
	}
	if in.Cwd == "" && len(h.WorkspaceRoots) > 0 {
		in.Cwd = h.WorkspaceRoots[0]
	}
	in.Runtime = guessRuntime(&h)
	return in, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// guessRuntime tells the runtime from the fields only one runtime sends,
// then from where the transcript is kept. Fields every runtime sends
// (session_id, cwd, a PreCompact event) say nothing: RuntimeUnknown.
func guessRuntime(h *hookJSON) string {
	switch {
	case h.ConversationID != "" || h.CursorVersion != "" || h.WorkspaceRoots != nil:
		return RuntimeCursor
	case h.TurnID != "":
		return RuntimeCodex
	case h.Timestamp != nil:
		return RuntimeGemini
	}
	switch h.HookEventName {
	case "PreCompress", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "BeforeTool", "AfterTool", "BeforeToolSelection":
		return RuntimeGemini
	}
	if rt := runtimeOfPath(deref(h.TranscriptPath)); rt != RuntimeUnknown {
		return rt
	}
	if h.CompactSummary != nil || h.CustomInstructions != nil {
		return RuntimeClaudeCode
	}
	return RuntimeUnknown
}

// runtimeOfPath tells the runtime from a transcript's usual place:
// ~/.claude/projects/…, ~/.codex/sessions/…/rollout-*.jsonl, ~/.gemini/….
func runtimeOfPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	base := filepath.Base(p)
	switch {
	case p == "":
	case strings.Contains(p, "/.claude/projects/"):
		return RuntimeClaudeCode
	case strings.Contains(p, "/.codex/"), strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl"):
		return RuntimeCodex
	case strings.Contains(p, "/.gemini/"):
		return RuntimeGemini
	case strings.Contains(p, "/.cursor/"):
		return RuntimeCursor
	}
	return RuntimeUnknown
}

// ShellRun is a shell command a tool event reports, as far as the
// runtime says.
type ShellRun struct {
	Command string
	// ExitCode is the exit status; -1 when the runtime does not pass it
	// (Codex; Cursor's failures).
	ExitCode int
	// Failed: the command failed (a non-zero exit status, or a failure
	// event). False also when the runtime does not say (Codex).
	Failed bool
	// Output is the output the runtime passed, cut as run records keep
	// errors: always for a failure, and for a command whose status is
	// unknown (a known failure may be recognised in it); "" otherwise.
	Output string
}

// ShellCall is the shell command a tool event reports, read the way the
// runtime reports it (runtime: claude, codex, gemini, cursor, opencode;
// ok is false when the event is not about a shell command, or the
// command never ran):
//
//   - Claude Code: PostToolUse for a command that succeeded;
//     PostToolUseFailure with "Exit code N" and the output in error.
//   - Codex: PostToolUse, whatever the exit status, with the output
//     alone as tool_response (a string): the status is unknown.
//   - Gemini CLI: AfterTool, tool_response.llmContent holding "Output:
//     …" and, for a non-zero status, "Exit Code: N".
//   - Cursor: postToolUse with tool_output {"output","exitCode"} for a
//     command that exited 0; postToolUseFailure with error_message.
//   - OpenCode (memctl's plugin): tool_response {"exit","output"}.
func ShellCall(in HookInput, runtime string) (ShellRun, bool) {
	if !IsShellTool(in.ToolName) || in.ToolNotRun {
		return ShellRun{}, false
	}
	run := ShellRun{Command: ShellCommand(in.ToolInput)}
	if run.Command == "" {
		return ShellRun{}, false
	}
	failed := func(code int, out string) (ShellRun, bool) {
		run.ExitCode, run.Failed, run.Output = code, true, errorExcerpt(out)
		return run, true
	}
	switch runtime {
	case "codex":
		var out string
		if json.Unmarshal(in.ToolResponse, &out) != nil {
			out = string(in.ToolResponse)
		}
		run.ExitCode, run.Output = -1, errorExcerpt(out)
		return run, true
	case "gemini":
		var resp struct {
			LLMContent json.RawMessage `json:"llmContent"`
			Error      *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(in.ToolResponse, &resp)
		var text string
		_ = json.Unmarshal(resp.LLMContent, &text)
		spawnErr := resp.Error != nil && resp.Error.Message != ""
		code, fail, out := geminiShellResult(text, spawnErr)
		if spawnErr {
			return failed(-1, strings.TrimSpace(out+"\n"+resp.Error.Message))
		}
		if fail {
			return failed(code, out)
		}
		run.ExitCode = code
		return run, true
	case "cursor":
		if in.ToolError != "" || strings.HasSuffix(in.Event, "Failure") {
			return failed(-1, in.ToolError)
		}
		var resp struct {
			Output   *string `json:"output"`
			Stdout   *string `json:"stdout"`
			Stderr   string  `json:"stderr"`
			ExitCode *int    `json:"exitCode"`
		}
		raw := in.ToolResponse
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw = json.RawMessage(s) // tool_output is JSON in a string
		}
		_ = json.Unmarshal(raw, &resp)
		if resp.ExitCode != nil && *resp.ExitCode != 0 {
			out := resp.Stderr
			for _, p := range []*string{resp.Output, resp.Stdout} {
				if p != nil {
					out = *p + "\n" + out
				}
			}
			return failed(*resp.ExitCode, out)
		}
		return run, true
	case "opencode":
		var resp struct {
			Exit   *int   `json:"exit"`
			Output string `json:"output"`
		}
		_ = json.Unmarshal(in.ToolResponse, &resp)
		switch {
		case resp.Exit == nil: // cut short: a timeout or the user
			run.ExitCode = -1
		case *resp.Exit != 0:
			return failed(*resp.Exit, resp.Output)
		}
		return run, true
	}
	if in.ToolError == "" && !strings.HasSuffix(in.Event, "Failure") {
		return run, true
	}
	code, out := claudeExit(in.ToolError, true)
	return failed(code, out)
}

// geminiShellResult reads Gemini CLI's run_shell_command result text:
// "Output: …", then lines it adds only when they apply (Error: when the
// shell could not run the command, which also sets the result's error;
// Exit Code:, Signal:, Background PIDs:, Process Group PGID:), inside
// <untrusted_context> since v0.49; before v0.27 "Command:" and
// "Directory:" lines came first. The added lines are read from the end,
// so that output which itself prints "Error: …" stays output (an Error:
// line is Gemini's only when spawnErr says the result has an error). The
// exit status is 0 when no "Exit Code:" line says otherwise; a command
// cut short by the timeout failed, one the user cancelled or sent to the
// background has no status (-1, not failed), one killed by a signal
// failed (-1).
func geminiShellResult(text string, spawnErr bool) (code int, failed bool, out string) {
	text = strings.TrimSpace(text)
	text = strings.TrimPrefix(text, "<untrusted_context>")
	text = strings.TrimSuffix(text, "</untrusted_context>")
	text = strings.Trim(text, "\r\n")
	switch {
	case strings.HasPrefix(text, "Command was automatically cancelled"):
		return -1, true, text
	case strings.HasPrefix(text, "Command was cancelled"), strings.HasPrefix(text, "Command moved to background"):
		return -1, false, ""
	}
	lines := strings.Split(text, "\n")
	var errs []string
	signal := false
	for len(lines) > 1 {
		l := strings.TrimRight(lines[len(lines)-1], "\r")
		if n, ok := strings.CutPrefix(l, "Exit Code: "); ok {
			if c, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
				code = c
			}
		} else if e, ok := strings.CutPrefix(l, "Error: "); ok && (spawnErr || e == "(none)") {
			if e != "(none)" {
				errs = append(errs, e)
			}
		} else if sig, ok := strings.CutPrefix(l, "Signal: "); ok {
			signal = signal || sig != "(none)"
		} else if !strings.HasPrefix(l, "Background PIDs: ") && !strings.HasPrefix(l, "Process Group PGID: ") {
			break
		}
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && (strings.HasPrefix(lines[0], "Command: ") || strings.HasPrefix(lines[0], "Directory: ")) {
		lines = lines[1:]
	}
	out = strings.TrimPrefix(strings.Join(lines, "\n"), "Output: ")
	if out == "(empty)" {
		out = ""
	}
	out = strings.TrimSpace(strings.Join(append([]string{out}, errs...), "\n"))
	if signal && code == 0 {
		code = -1
	}
	return code, code != 0, out
}

// ToolFailed reports whether a tool event says the tool failed or never
// ran: Claude Code's and Cursor's failure events, Gemini CLI's result
// with an error (its model then sees only the error, so nothing added
// to the result would reach it).
func ToolFailed(in HookInput) bool {
	if strings.HasSuffix(in.Event, "Failure") || in.ToolNotRun {
		return true
	}
	var resp struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(in.ToolResponse, &resp) != nil {
		return false // a string (Codex's, Cursor's tool_output)
	}
	switch string(resp.Error) {
	case "", "null", `""`, "false", "{}":
		return false
	}
	return true
}

// IsShellTool reports whether a tool event's tool_name is a runtime's
// shell: Claude Code's and Codex's Bash (Codex's older shell, local_shell
// and exec_command), Gemini CLI's run_shell_command, Cursor's Shell,
// OpenCode's bash.
func IsShellTool(name string) bool {
	switch name {
	case "Bash", "shell", "run_shell_command", "local_shell", "exec_command", "Shell", "bash":
		return true
	}
	return false
}

// ShellCommand is the command line of a shell tool's arguments: their
// "command" or "cmd", a string or an array of words (joined); "" when
// there is none.
func ShellCommand(toolInput json.RawMessage) string {
	var args struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	_ = json.Unmarshal(toolInput, &args)
	for _, raw := range []json.RawMessage{args.Command, args.Cmd} {
		var s string
		var words []string
		switch {
		case json.Unmarshal(raw, &s) == nil && s != "":
			return s
		case json.Unmarshal(raw, &words) == nil && len(words) > 0:
			return strings.Join(words, " ")
		}
	}
	return ""
}
