package transcript

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// codexReader reads a Codex rollout: one RolloutLine per line,
// {"timestamp", "type", "payload"}, where type is session_meta,
// turn_context, response_item (a Responses API item: message,
// function_call, function_call_output, custom_tool_call, local_shell_call,
// …), event_msg (user_message, agent_message, patch_apply_end,
// exec_command_end, task_complete, …) or compacted. See codex-rs/protocol
// (RolloutItem, ResponseItem) and codex-rs/rollout/src/policy.rs for what
// is persisted.
type codexReader struct {
	b    *builder
	cwd  string         // the current turn's working directory
	proc map[string]int // unified exec session id → the command it runs
	cont map[string]int // write_stdin call id → the command it continues
}

func newCodexReader(b *builder) *codexReader {
	return &codexReader{b: b, proc: map[string]int{}, cont: map[string]int{}}
}

// codexPayload holds the payload fields the reader uses, of whichever type
// (session_meta, turn_context, compacted, response_item, event_msg); the
// rest of a payload (encrypted reasoning, base instructions, token counts)
// is skipped unread. JSON values stay JSON until used.
type codexPayload struct {
	Type                   string
	ID, Cwd, Model         string // session_meta, turn_context
	Message                string // compacted, user_message, agent_message
	Role                   string // message
	Content                []byte // message: [{type, text}]
	Name, Arguments, Input string // function_call, custom_tool_call
	CallID                 string
	Output                 []byte // *_output: a string or content items
	Action                 []byte // local_shell_call: {command, working_directory}
	Success                bool   // patch_apply_end
	Changes                []byte // patch_apply_end: {path: change}
	ExitCode               []byte // exec_command_end
	AggregatedOutput       string // exec_command_end
	LastAgentMessage       string // task_complete
}

func (p *codexPayload) set(k, v []byte) bool {
	switch string(k) {
	case `"type"`:
		p.Type = str(v)
	case `"id"`:
		p.ID = str(v)
	case `"cwd"`:
		p.Cwd = str(v)
	case `"model"`:
		p.Model = str(v)
	case `"message"`:
		p.Message = str(v)
	case `"role"`:
		p.Role = str(v)
	case `"content"`:
		p.Content = v
	case `"name"`:
		p.Name = str(v)
	case `"arguments"`:
		p.Arguments = str(v)
	case `"input"`:
		p.Input = str(v)
	case `"call_id"`:
		p.CallID = str(v)
	case `"output"`:
		p.Output = v
	case `"action"`:
		p.Action = v
	case `"success"`:
		p.Success = isTrue(v)
	case `"changes"`:
		p.Changes = v
	case `"exit_code"`:
		p.ExitCode = v
	case `"aggregated_output"`:
		p.AggregatedOutput = str(v)
	case `"last_agent_message"`:
		p.LastAgentMessage = str(v)
	}
	return true
}

func (r *codexReader) line(line []byte) error {
	var ts, typ string
	var payload []byte
	err := fields(line, func(k, v []byte) bool {
		switch string(k) {
		case `"timestamp"`:
			ts = str(v)
		case `"type"`:
			typ = str(v)
		case `"payload"`:
			payload = v
		}
		return true
	})
	if err != nil {
		return err
	}
	b := r.b
	b.at(ts)
	var p codexPayload
	if len(payload) > 0 && payload[0] == '{' {
		_ = fields(payload, p.set)
	}
	switch typ {
	case "session_meta":
		if b.s.SessionID == "" {
			b.s.SessionID = p.ID
		}
		if b.s.Cwd == "" {
			b.s.Cwd = p.Cwd
		}
		if r.cwd == "" {
			r.cwd = p.Cwd
		}
	case "turn_context":
		if p.Model != "" {
			b.s.Model = p.Model
		}
		if p.Cwd != "" {
			r.cwd = p.Cwd
		}
	case "compacted":
		if m := strings.TrimSpace(p.Message); m != "" {
			b.s.CompactSummary = head(m, maxText)
		}
	case "response_item":
		r.item(&p)
	case "event_msg":
		r.event(&p)
	}
	return nil
}

func (r *codexReader) item(p *codexPayload) {
	b := r.b
	switch p.Type {
	case "message":
		if p.Role != "user" && p.Role != "assistant" {
			return
		}
		var texts []string
		_ = elements(p.Content, func(v []byte) {
			var typ, text string
			_ = fields(v, func(k, v []byte) bool {
				switch string(k) {
				case `"type"`:
					typ = str(v)
				case `"text"`:
					text = str(v)
				}
				return true
			})
			if typ == "input_text" || typ == "output_text" {
				texts = append(texts, text)
			}
		})
		switch p.Role {
		case "user":
			if b.s.FirstUserText == "" {
				b.userText(userText(strings.Join(texts, "\n\n")))
			}
		case "assistant":
			b.assistantText("", strings.TrimSpace(strings.Join(texts, "\n\n")))
		}
	case "function_call":
		r.call(p.CallID, p.Name, p.Arguments)
	case "custom_tool_call":
		if p.Name == "apply_patch" {
			b.changes(p.CallID, r.patchPaths(p.Input, r.cwd)...)
		}
	case "local_shell_call":
		var a struct {
			Command []string `json:"command"`
			Workdir string   `json:"working_directory"`
		}
		if json.Unmarshal(p.Action, &a) == nil {
			r.shell(p.CallID, a.Command, a.Workdir)
		}
	case "function_call_output", "custom_tool_call_output":
		r.result(p.CallID, outputText(p.Output))
	}
}

// call notes a function call that runs a command or changes files.
func (r *codexReader) call(id, name, args string) {
	var a struct {
		Command   json.RawMessage `json:"command"` // argv (shell) or a string (shell_command)
		Cmd       string          `json:"cmd"`     // exec_command
		Workdir   string          `json:"workdir"`
		SessionID json.Number     `json:"session_id"` // write_stdin
		Input     string          `json:"input"`      // apply_patch as a function
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return
	}
	switch name {
	case "shell", "container.exec", "local_shell":
		var argv []string
		if json.Unmarshal(a.Command, &argv) == nil {
			r.shell(id, argv, a.Workdir)
		}
	case "shell_command":
		var cmd string
		if json.Unmarshal(a.Command, &cmd) == nil {
			r.script(id, cmd, a.Workdir)
		}
	case "exec_command":
		r.script(id, a.Cmd, a.Workdir)
	case "write_stdin":
		if i, ok := r.proc[a.SessionID.String()]; ok {
			r.cont[id] = i
		}
	case "apply_patch":
		r.b.changes(id, r.patchPaths(a.Input, a.Workdir)...)
	}
}

// shell takes an argv: bash -lc SCRIPT is the script, anything else the
// words joined as a shell would read them.
func (r *codexReader) shell(id string, argv []string, dir string) {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch shellName(argv[0]) {
		case "bash", "sh", "zsh", "dash":
			r.script(id, argv[2], dir)
			return
		}
	}
	if len(argv) > 0 {
		r.script(id, shellJoin(argv), dir)
	}
}

func shellName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// script starts a command; Codex runs apply_patch heredocs sent to the
// shell as a patch, so those are file changes instead.
func (r *codexReader) script(id, cmd, dir string) {
	if cmd == "" {
		return
	}
	if strings.Contains(cmd, "*** Begin Patch") {
		r.b.changes(id, r.patchPaths(cmd, dir)...)
		return
	}
	r.b.command(id, cmd)
}

// patchPaths lists the files an apply_patch text adds, deletes, updates or
// moves to, relative to dir (else the turn's cwd).
func (r *codexReader) patchPaths(patch, dir string) []string {
	if dir == "" {
		dir = r.cwd
	}
	var paths []string
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		for _, p := range []string{"*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, p); ok {
				paths = append(paths, r.b.path(strings.TrimSpace(f), dir))
			}
		}
	}
	return paths
}

func (r *codexReader) result(id, text string) {
	b := r.b
	exit, running, body := codexExit(text)
	if _, ok := b.pendFile[id]; ok {
		ok := exit == 0 || (exit < 0 && strings.HasPrefix(body, "Success."))
		b.changed(id, ok)
		if !ok {
			b.error(body)
		}
		return
	}
	i, ok := b.pendCmd[id]
	if !ok {
		if i, ok = r.cont[id]; !ok {
			return
		}
		delete(r.cont, id)
	}
	delete(b.pendCmd, id)
	b.output(i, body)
	if running != "" {
		// Unified exec: the command outlives the call; write_stdin calls on
		// this session bring the rest of its output and its exit code.
		r.proc[running] = i
		b.pendCmd[id] = i // still open: an unfinished command counts its tasks at the end
		return
	}
	for k, v := range r.proc {
		if v == i {
			delete(r.proc, k)
		}
	}
	for k, v := range b.pendCmd {
		if v == i {
			delete(b.pendCmd, k)
		}
	}
	b.exited(i, exit, exit > 0)
}

func (r *codexReader) event(p *codexPayload) {
	b := r.b
	switch p.Type {
	case "user_message":
		if b.s.FirstUserText == "" {
			b.userText(userText(p.Message))
		}
	case "agent_message":
		b.assistantText("", strings.TrimSpace(p.Message))
	case "task_complete":
		b.assistantText("", strings.TrimSpace(p.LastAgentMessage))
	case "patch_apply_end":
		if p.Success && len(p.Changes) > 0 && p.Changes[0] == '{' {
			var keys []string
			_ = fields(p.Changes, func(k, _ []byte) bool {
				keys = append(keys, str(k))
				return true
			})
			slices.Sort(keys)
			for _, k := range keys {
				b.files.add(b.path(k, r.cwd))
			}
		}
	case "exec_command_end":
		// Persisted only in Codex's extended mode; the call's output, which
		// follows, says the same, so this settles only a command still open.
		code, err := strconv.Atoi(string(p.ExitCode))
		if i, ok := b.pendCmd[p.CallID]; ok && err == nil {
			delete(b.pendCmd, p.CallID)
			b.output(i, p.AggregatedOutput)
			b.exited(i, code, code > 0)
		}
	}
}

// outputText flattens a function output: a string, or content items whose
// text parts are joined.
func outputText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		return str(raw)
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		if it.Text != "" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// codexExit reads the exit status out of a tool output, in the three forms
// Codex writes (codex-rs/core/src/tools): the structured JSON
// {"output", "metadata": {"exit_code"}}, the freeform "Exit code: N / Wall
// time / Output:" text, and unified exec's "Process exited with code N"
// (or "Process running with session ID N" while it runs). Otherwise the
// status is unknown (-1) and the text is the output.
func codexExit(text string) (exit int, running, body string) {
	if strings.HasPrefix(text, "{") {
		var v struct {
			Output   string `json:"output"`
			Metadata *struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(text), &v) == nil && v.Metadata != nil && v.Metadata.ExitCode != nil {
			return *v.Metadata.ExitCode, "", v.Output
		}
	}
	exit = -1
	rest := text
	for {
		line, after, found := strings.Cut(rest, "\n")
		switch {
		case line == "Output:":
			return exit, running, after
		case strings.HasPrefix(line, "Exit code: "):
			exit = atoiOr(strings.TrimPrefix(line, "Exit code: "), -1)
		case strings.HasPrefix(line, "Process exited with code "):
			exit = atoiOr(strings.TrimPrefix(line, "Process exited with code "), -1)
		case strings.HasPrefix(line, "Process running with session ID "):
			running = strings.TrimSpace(strings.TrimPrefix(line, "Process running with session ID "))
		case strings.HasPrefix(line, "Wall time: "), strings.HasPrefix(line, "Chunk ID: "),
			strings.HasPrefix(line, "Total output lines: "), strings.HasPrefix(line, "Original token count: "):
		default:
			return -1, "", text // not a header: the whole text is output
		}
		if !found {
			return exit, running, ""
		}
		rest = after
	}
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}
