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
	b *builder
}

type claudeLine struct {
	Type             string `json:"type"`
	Timestamp        string `json:"timestamp"`
	SessionID        string `json:"sessionId"`
	Cwd              string `json:"cwd"`
	IsSidechain      bool   `json:"isSidechain"` // a subagent's turn
	IsMeta           bool   `json:"isMeta"`      // injected by Claude Code, not typed
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // a string or a list of blocks
	IsError   bool            `json:"is_error"`
}

func (r *claudeReader) line(line []byte) error {
	var ev claudeLine
	if err := json.Unmarshal(line, &ev); err != nil {
		return err
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

// content decodes message content: a plain string is one text block.
func content(raw json.RawMessage) ([]claudeBlock, error) {
	if len(raw) == 0 || raw[0] != '[' {
		var s string
		if len(raw) > 0 && raw[0] == '"' {
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
		}
		return []claudeBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []claudeBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

func (r *claudeReader) user(ev *claudeLine) error {
	b := r.b
	// Results are decoded only for calls the session tracks: most results
	// (files read, searches) are not needed, and they are most of the bytes.
	if !ev.IsCompactSummary && !b.wantsResult(ev.Message.Content) {
		if ev.IsMeta || ev.IsSidechain || b.s.FirstUserText != "" {
			return nil
		}
	}
	blocks, err := content(ev.Message.Content)
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
			if t = userText(t); t != "" {
				typed = append(typed, t)
			}
		}
		b.userText(strings.Join(typed, "\n\n"))
	}
	return nil
}

// wantsResult reports whether raw content may hold the result of a call
// the builder waits for: a cheap look for the ids before decoding.
func (b *builder) wantsResult(raw json.RawMessage) bool {
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
	blocks, err := content(ev.Message.Content)
	if err != nil {
		return err
	}
	b := r.b
	synthetic := ev.Message.Model == "<synthetic>" // Claude Code's own stand-in replies
	if !synthetic && ev.Message.Model != "" {
		b.s.Model = ev.Message.Model
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
		b.assistantText(ev.Message.ID, strings.Join(texts, "\n\n"))
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
func resultText(raw json.RawMessage) (string, error) {
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
		if strings.HasPrefix(text, "Command running in background with ID:") {
			return -1, text
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
