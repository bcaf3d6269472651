package hooks

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// MaxContext is the most characters a session-start hook hands an agent:
// Claude Code keeps 10,000 of a hook's output string and saves the rest
// to a file; the margin is for the line that says the pack was cut.
const MaxContext = 9500

// Action is what an event of `memctl hook` does.
type Action int

// The actions.
const (
	ActionPrime  Action = iota // print the context pack in the runtime's envelope
	ActionFlush                // record the session (memctl flush), print nothing (Codex's stop: {"continue":true})
	ActionWarn                 // before a tool: what broke before in its files, once per file and session
	ActionRecord               // after a shell command: record it in the session's run record; a failure's playbook
)

// ActionOf is what event, one of Events (ValidEvent), does.
func ActionOf(event string) Action {
	switch event {
	case SessionStart:
		return ActionPrime
	case PreToolUse:
		return ActionWarn
	case PostToolUse:
		return ActionRecord
	}
	return ActionFlush
}

// WarnsBefore reports whether rt's pre-tool event can hand the agent a
// text before the tool runs: Claude Code's and Codex's PreToolUse can
// (additionalContext). Gemini CLI's BeforeTool drops additionalContext,
// Cursor's preToolUse documents none (and answering it risks a decision),
// OpenCode's tool.execute.before can only block: there, an edit's warning
// comes with its result, from post-tool-use.
func (rt *Runtime) WarnsBefore() bool { return rt.Name == "claude" || rt.Name == "codex" }

// ToolOutput is what rt's hook for a tool event prints for text (a
// warning or a failure's playbook; "" for nothing to say). event is
// PreToolUse or PostToolUse, inputEvent the hook_event_name the runtime
// sent. Never a decision: the tool is never blocked.
//
//   - Claude Code and Codex: {"hookSpecificOutput":{"hookEventName":…,
//     "additionalContext":…}}, named after the event (Claude Code's
//     PostToolUseFailure too); nothing when there is nothing to say.
//   - Gemini CLI: the same envelope for AfterTool; {} otherwise (stdout
//     must be JSON, and a hook with none shows its stderr to the user).
//   - Cursor: {"additional_context":…} after a tool; {} otherwise.
//   - OpenCode's plugin: the text, which it adds to the tool's result.
func ToolOutput(rt *Runtime, event, inputEvent, text string) []byte {
	pre := event == PreToolUse
	switch rt.Name {
	case "gemini", "cursor":
		switch {
		case pre || text == "":
			return []byte("{}\n")
		case rt.Name == "cursor":
			return additionalContext(text)
		}
		return hookSpecific("AfterTool", text)
	case "opencode":
		return textLine(text)
	}
	switch {
	case text == "":
		return nil
	case pre:
		return hookSpecific("PreToolUse", text)
	case rt.Name == "claude" && inputEvent == "PostToolUseFailure":
		return hookSpecific(inputEvent, text)
	}
	return hookSpecific("PostToolUse", text)
}

// ToolFallback is what rt's hook for a tool event prints when it gives up
// (out of time, a crash): ToolOutput's empty answer, except that Claude
// Code's hooks print {}, which Claude Code reads as nothing to say and
// Cursor, which runs Claude Code's hooks too, needs from a preToolUse
// hook (an empty answer blocks the tool in some of its builds).
func ToolFallback(rt *Runtime, event string) []byte {
	if rt.Name == "claude" {
		return []byte("{}\n")
	}
	return ToolOutput(rt, event, "", "")
}

// SessionStartOutput is what rt's session-start hook prints for text, the
// context pack: Claude Code, Codex and Gemini CLI read
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}},
// Cursor {"additional_context":…}, OpenCode's plugin the text itself.
// Empty text (outside a workspace) still gives the envelope: Codex and
// Gemini want JSON from a hook that exits 0.
func SessionStartOutput(rt *Runtime, text string) []byte {
	switch rt.Name {
	case "opencode":
		return textLine(text)
	case "cursor":
		return additionalContext(text)
	}
	return hookSpecific("SessionStart", text)
}

// hookSpecific is {"hookSpecificOutput":{"hookEventName":event,
// "additionalContext":text}}, the envelope Claude Code, Codex and Gemini
// CLI read.
func hookSpecific(event, text string) []byte {
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return marshalLine(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{event, text}})
}

// additionalContext is Cursor's {"additional_context":text}.
func additionalContext(text string) []byte {
	return marshalLine(struct {
		AdditionalContext string `json:"additional_context"`
	}{text})
}

// textLine is text as OpenCode's plugin takes it: itself, ending in one
// line break; nothing for "".
func textLine(text string) []byte {
	if text == "" {
		return nil
	}
	return []byte(strings.TrimSuffix(text, "\n") + "\n")
}

// FlushOutput is what rt's hook prints after a flush for event: nothing,
// except for Codex's Stop, which must print JSON.
func FlushOutput(rt *Runtime, event string) []byte {
	if rt.Name == "codex" && event == Stop {
		return marshalLine(struct {
			Continue bool `json:"continue"`
		}{true})
	}
	return nil
}

func marshalLine(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // plain structs of strings always encode
	return []byte(b.String())
}

// CutContext cuts text to at most max characters, at the end of a line
// when there is one, and says so on a last line naming the command that
// prints it all.
func CutContext(text string, max int) string {
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	const note = "\n[cut to fit the hook's limit: run memctl prime for the rest]\n"
	keep := max - utf8.RuneCountInString(note)
	i := 0
	for n := 0; n < keep && i < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	cut := text[:i]
	if j := strings.LastIndexByte(cut, '\n'); j > 0 {
		cut = cut[:j]
	}
	return cut + note
}

// Dir is the directory a hook's workspace is found from: the input's cwd,
// else $CLAUDE_PROJECT_DIR, else $GEMINI_PROJECT_DIR; "" for the working
// directory.
func Dir(cwd string, getenv func(string) string) string {
	if cwd != "" {
		return cwd
	}
	for _, v := range []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"} {
		if d := getenv(v); d != "" {
			return d
		}
	}
	return ""
}
