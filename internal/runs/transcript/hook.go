package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
	// PostToolUseFailure): for a shell command "Exit code N" and its
	// output.
	ToolError string
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

// ShellCall is a shell command a tool event reports: the command line,
// its exit status (-1: unknown) and, when it failed, its error text cut as
// run records keep errors. ok is false when the event is not about a
// shell command. Claude Code sends PostToolUse only for a call that
// succeeded and PostToolUseFailure, with "Exit code N" and the output in
// error, for one that failed.
func ShellCall(in HookInput) (cmd string, exit int, errText string, ok bool) {
	if !IsShellTool(in.ToolName) {
		return "", 0, "", false
	}
	if cmd = ShellCommand(in.ToolInput); cmd == "" {
		return "", 0, "", false
	}
	if in.ToolError == "" && !strings.HasSuffix(in.Event, "Failure") {
		return cmd, 0, "", true
	}
	code, out := claudeExit(in.ToolError, true)
	return cmd, code, errorExcerpt(out), true
}

// IsShellTool reports whether a tool event's tool_name is a runtime's
// shell: Claude Code's Bash, Codex's shell, local_shell and exec_command,
// Gemini CLI's run_shell_command, Cursor's terminal.
func IsShellTool(name string) bool {
	switch name {
	case "Bash", "shell", "run_shell_command", "local_shell", "exec_command", "terminal":
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
