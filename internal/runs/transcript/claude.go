package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// claudeReader reads Claude Code's transcript: one JSON event per line,
// of type user, assistant, summary, system and a few bookkeeping types.
// User and assistant events carry an Anthropic Messages API message whose
// content is a string or a list of blocks: text, thinking, tool_use
// {id, name, input} and tool_result {tool_use_id, content, is_error}.
type claudeReader struct {
	b         *builder
	sidechain bool // a subagent's own transcript: every line is a sidechain's
}

type claudeLine struct {
	Type, Timestamp, SessionID, Cwd string
	IsSidechain                     bool // a subagent's turn
	IsMeta                          bool // injected by Claude Code, not typed
	IsCompactSummary                bool
	MsgID, Model                    string
	Content                         []byte // message.content as JSON: a string or a list of blocks
}

type claudeBlock struct {
	Type      string
	Text      string
	ID        string
	Name      string
	Input     []byte // JSON
	ToolUseID string
	Content   []byte // JSON: a string or a list of blocks
	IsError   bool
}

func (r *claudeReader) line(line []byte) error {
	var ev claudeLine
	var message []byte
	err := fields(line, func(k, v []byte) bool {
		switch string(k) {
		case `"type"`:
			ev.Type = str(v)
		case `"timestamp"`:
			ev.Timestamp = str(v)
		case `"sessionId"`:
			ev.SessionID = str(v)
		case `"cwd"`:
			ev.Cwd = str(v)
		case `"isSidechain"`:
			ev.IsSidechain = isTrue(v)
		case `"isMeta"`:
			ev.IsMeta = isTrue(v)
		case `"isCompactSummary"`:
			ev.IsCompactSummary = isTrue(v)
		case `"message"`:
			message = v
		}
		return true
	})
	if err != nil {
		return err
	}
	ev.IsSidechain = ev.IsSidechain || r.sidechain
	if len(message) > 0 && message[0] == '{' {
		_ = fields(message, func(k, v []byte) bool {
			switch string(k) {
			case `"id"`:
				ev.MsgID = str(v)
			case `"model"`:
				ev.Model = str(v)
			case `"content"`:
				ev.Content = v
			}
			return true
		})
	}
	b := r.b
	b.at(ev.Timestamp)
	if b.s.SessionID == "" {
		b.s.SessionID = ev.SessionID
	}
	if b.s.Cwd == "" {
		b.s.Cwd = ev.Cwd
	}
	switch ev.Type {
	case "user":
		return r.user(&ev)
	case "assistant":
		return r.assistant(&ev)
	}
	return nil
}

// content reads message content: a plain string is one text block. Only
// the small fields are decoded; inputs and results stay JSON.
func content(raw []byte) ([]claudeBlock, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return []claudeBlock{{Type: "text", Text: str(raw)}}, nil
	}
	var blocks []claudeBlock
	err := elements(raw, func(v []byte) {
		var bl claudeBlock
		_ = fields(v, func(k, v []byte) bool {
			switch string(k) {
			case `"type"`:
				bl.Type = str(v)
			case `"text"`:
				bl.Text = str(v)
			case `"id"`:
				bl.ID = str(v)
			case `"name"`:
				bl.Name = str(v)
			case `"input"`:
				bl.Input = v
			case `"tool_use_id"`:
				bl.ToolUseID = str(v)
			case `"content"`:
				bl.Content = v
			case `"is_error"`:
				bl.IsError = isTrue(v)
			}
			return true
		})
		blocks = append(blocks, bl)
	})
	return blocks, err
}

func (r *claudeReader) user(ev *claudeLine) error {
	b := r.b
	// Results are decoded only for calls the session tracks: most results
	// (files read, searches) are not needed, and they are most of the bytes.
	if !ev.IsCompactSummary && !b.wantsResult(ev.Content) {
		if ev.IsMeta || ev.IsSidechain || b.s.FirstUserText != "" {
			return nil
		}
	}
	blocks, err := content(ev.Content)
	if err != nil {
		return err
	}
	var texts []string
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "text":
			texts = append(texts, bl.Text)
		case "tool_result":
			if err := r.result(bl); err != nil {
				return err
			}
		}
	}
	switch {
	case ev.IsCompactSummary:
		b.s.CompactSummary = head(strings.TrimSpace(strings.Join(texts, "\n")), maxText)
	case ev.IsMeta, ev.IsSidechain, b.s.FirstUserText != "":
	default:
		var typed []string
		for _, t := range texts {
			if c := commandIntent(t); c != "" {
				typed = append(typed, c)
			} else if t = userText(t); t != "" {
				typed = append(typed, t)
			}
		}
		b.userText(strings.Join(typed, "\n\n"))
	}
	return nil
}

// wantsResult reports whether raw content may hold the result of a call
// the builder waits for: a cheap look for the ids before decoding.
func (b *builder) wantsResult(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '[' || (len(b.pendCmd) == 0 && len(b.pendFile) == 0) {
		return false
	}
	for id := range b.pendCmd {
		if bytes.Contains(raw, []byte(id)) {
			return true
		}
	}
	for id := range b.pendFile {
		if bytes.Contains(raw, []byte(id)) {
			return true
		}
	}
	return false
}

func (r *claudeReader) assistant(ev *claudeLine) error {
	blocks, err := content(ev.Content)
	if err != nil {
		return err
	}
	b := r.b
	// "<synthetic>" marks Claude Code's own stand-in replies; a subagent
	// may run on another model than the session's.
	synthetic := ev.Model == "<synthetic>"
	if !synthetic && !ev.IsSidechain && ev.Model != "" {
		b.s.Model = ev.Model
	}
	var texts []string
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "text":
			if t := strings.TrimSpace(bl.Text); t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			r.toolUse(bl, ev.Cwd)
		}
	}
	if !synthetic && !ev.IsSidechain && len(texts) > 0 {
		b.assistantText(ev.MsgID, strings.Join(texts, "\n\n"))
	}
	return nil
}

// toolUse notes the calls that change files or run commands. A malformed
// input is not an error of the line: the call is just not understood.
func (r *claudeReader) toolUse(bl *claudeBlock, cwd string) {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Command      string `json:"command"`
	}
	switch bl.Name {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		if json.Unmarshal(bl.Input, &in) != nil {
			return
		}
		p := in.FilePath
		if p == "" {
			p = in.NotebookPath
		}
		r.b.changes(bl.ID, r.b.path(p, cwd))
	case "Bash", "PowerShell":
		if json.Unmarshal(bl.Input, &in) != nil || in.Command == "" {
			return
		}
		r.b.command(bl.ID, in.Command)
	}
}

func (r *claudeReader) result(bl *claudeBlock) error {
	b := r.b
	i, isCmd := b.pendCmd[bl.ToolUseID]
	_, isFile := b.pendFile[bl.ToolUseID]
	if !isCmd && !isFile {
		return nil
	}
	text, err := resultText(bl.Content)
	if err != nil {
		return err
	}
	if isFile {
		b.changed(bl.ToolUseID, !bl.IsError)
		if bl.IsError && !notRun(text) {
			b.error(unwrapToolError(text))
		}
	}
	if isCmd {
		delete(b.pendCmd, bl.ToolUseID)
		exit, out := claudeExit(text, bl.IsError)
		b.output(i, out)
		b.exited(i, exit, bl.IsError && !notRun(out))
	}
	return nil
}

// resultText flattens a tool_result's content: a string, or blocks whose
// text parts are joined.
func resultText(raw []byte) (string, error) {
	blocks, err := content(raw)
	if err != nil {
		return "", err
	}
	if len(blocks) == 1 {
		return blocks[0].Text, nil
	}
	var parts []string
	for _, bl := range blocks {
		if bl.Type == "text" && bl.Text != "" {
			parts = append(parts, bl.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// claudeExit reads a Bash result's exit status. Claude Code writes a
// failing command's result as "Exit code N" and the output on the next
// lines, with is_error set; a result without is_error is a command that
// exited 0, unless it was sent to the background.
func claudeExit(text string, isError bool) (int, string) {
	if !isError {
		if backgrounded(text) {
			return -1, text
		}
		if text == "(No content)" { // what Claude Code shows for no output
			text = ""
		}
		return 0, text
	}
	first, rest, _ := strings.Cut(text, "\n")
	if n, ok := strings.CutPrefix(first, "Exit code "); ok {
		if code, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
			return code, rest
		}
	}
	return -1, text
}

// backgrounded reports whether a Bash result says the command went on in
// the background: "Command running in background with ID: …", "Command
// was manually backgrounded by user with ID: …", "Command exceeded the
// assistant-mode blocking budget (…) and was moved to the background with
// ID: …".
func backgrounded(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return strings.HasPrefix(first, "Command ") && strings.Contains(first, "background") && strings.Contains(first, " with ID: ")
}

// notRun reports whether a failed result says the tool never ran: a
// permission denied or refused by the user, an interrupt. Those are not
// errors worth a signature.
func notRun(text string) bool {
	for _, p := range []string{
		"Claude requested permissions to ",
		"Permission to use ",
		"The user doesn't want to proceed with this tool use",
		"The user doesn't want to take this action right now",
		"[Request interrupted by user",
		"This Bash command contains multiple operations. The following parts require approval",
	} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// unwrapToolError takes the message out of Claude Code's
// <tool_use_error>…</tool_use_error> wrapper.
func unwrapToolError(text string) string {
	t := strings.TrimSpace(text)
	if s, ok := strings.CutPrefix(t, "<tool_use_error>"); ok {
		if s, ok := strings.CutSuffix(s, "</tool_use_error>"); ok {
			return s
		}
	}
	return text
}
