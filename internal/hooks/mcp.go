package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/memctl/memctl/internal/fsx"
)

// mcpKind is the shape of a runtime's MCP configuration.
type mcpKind int

const (
	mcpServersJSON mcpKind = iota // {"mcpServers":{"memctl":{"command":"memctl","args":["mcp"]}}}
	mcpCodexTOML                  // [mcp_servers.memctl] command = "memctl" args = ["mcp"]
	mcpOpenCode                   // {"mcp":{"memctl":{"type":"local","command":["memctl","mcp"],"enabled":true}}}
)

// mcpSpec says where a runtime registers MCP servers.
type mcpSpec struct {
	file, globalFile string // relative to the root and to home
	kind             mcpKind
	// globalNote, for a runtime whose user-scope MCP servers live in a file
	// memctl does not write (Claude Code's ~/.claude.json, which it
	// rewrites itself), is the command that registers memctl there.
	globalNote  string
	globalState string // the file status reads for the global scope
}

// mcpServer is the server memctl registers: the command and its arguments.
var mcpServer = []string{"memctl", "mcp"}

// MCPFile is where rt's MCP servers are registered in p, as shown.
func (rt *Runtime) MCPFile(p Place) (abs, shown string) {
	file := rt.mcp.file
	if p.Scope == Global {
		file = rt.mcp.globalFile
		if file == "" {
			file = rt.mcp.globalState
		}
	}
	return p.path(file)
}

// codexBlock is the TOML table memctl appends to a Codex config.toml.
const codexBlock = "[mcp_servers.memctl]\ncommand = \"memctl\"\nargs = [\"mcp\"]\n"

func (rt *Runtime) mcpEntry() *object {
	e := newObject()
	if rt.mcp.kind == mcpOpenCode {
		e.set("type", "local")
		e.set("command", []any{mcpServer[0], mcpServer[1]})
		e.set("enabled", true)
		return e
	}
	e.set("command", mcpServer[0])
	e.set("args", []any{mcpServer[1]})
	return e
}

func (rt *Runtime) mcpKey() string {
	if rt.mcp.kind == mcpOpenCode {
		return "mcp"
	}
	return "mcpServers"
}

// mcpState is the registration of memctl in a parsed JSON MCP config.
func (rt *Runtime) mcpState(root *object) (string, error) {
	v, ok := root.get(rt.mcpKey())
	if !ok {
		return NotInstalled, nil
	}
	servers, ok := v.(*object)
	if !ok {
		return "", fmt.Errorf("%q is not an object", rt.mcpKey())
	}
	e, ok := servers.get("memctl")
	switch {
	case !ok:
		return NotInstalled, nil
	case equal(e, rt.mcpEntry()):
		return Installed, nil
	}
	return Outdated, nil
}

// setMCP registers (on) or removes memctl in a parsed JSON MCP config; an
// object of servers left empty goes too.
func (rt *Runtime) setMCP(root *object, on bool) error {
	st, err := rt.mcpState(root)
	if err != nil || on && st == Installed || !on && st == NotInstalled {
		return err
	}
	v, _ := root.get(rt.mcpKey())
	servers, _ := v.(*object)
	if servers == nil {
		servers = newObject()
		root.set(rt.mcpKey(), servers)
	}
	if on {
		servers.set("memctl", rt.mcpEntry())
		return nil
	}
	servers.del("memctl")
	if len(servers.keys) == 0 {
		root.del(rt.mcpKey())
	}
	return nil
}

// MCPStatus reads whether rt's MCP config in p registers memctl.
func MCPStatus(rt *Runtime, p Place) Report {
	abs, shown := rt.MCPFile(p)
	return report(rt, p, abs, shown, func(data []byte) (string, error) {
		if rt.mcp.kind == mcpCodexTOML {
			return codexState(data)
		}
		root, err := parseObject(data)
		if err != nil {
			return "", err
		}
		return rt.mcpState(root)
	})
}

// registerMCP registers (on) or removes memctl in rt's MCP config in p.
// A config memctl cannot change safely is left as it is, with a Warning
// that says what to do by hand.
func registerMCP(rt *Runtime, p Place, on bool) (Result, error) {
	abs, shown := rt.MCPFile(p)
	if p.Scope == Global && rt.mcp.globalNote != "" {
		verb := "register memctl there with: " + rt.mcp.globalNote
		if !on {
			verb = "remove it with: claude mcp remove --scope user memctl"
		}
		return Result{File: shown, Warning: fmt.Sprintf("%s is %s's own state file, which memctl does not write; %s", shown, rt.Name, verb)}, nil
	}
	if rt.mcp.kind == mcpCodexTOML {
		return codexMCP(p, abs, shown, on)
	}
	return rewriteFile(p, abs, shown, 0, func(root *object) error { return rt.setMCP(root, on) })
}

// inlineServersRE finds mcp_servers written as a key (mcp_servers = {…},
// mcp_servers.x = …) rather than as tables.
var inlineServersRE = regexp.MustCompile(`(?m)^[ \t]*["']?mcp_servers["']?[ \t]*[=.]`)

// codexState reads a Codex config.toml's [mcp_servers.memctl].
func codexState(data []byte) (string, error) {
	var cfg struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return "", tomlError(err)
	}
	e, ok := cfg.MCPServers["memctl"]
	if !ok {
		return NotInstalled, nil
	}
	args, _ := e["args"].([]any)
	if len(e) == 2 && e["command"] == mcpServer[0] && slices.Equal(args, []any{mcpServer[1]}) {
		return Installed, nil
	}
	return Outdated, nil
}

func tomlError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &syntaxError{Format: "TOML", Line: pe.Position.Line, Column: pe.Position.Col, Msg: pe.Message}
	}
	return err
}

// codexMCP adds memctl's table to the end of a Codex config.toml, or
// removes it, as text: a TOML file is never re-encoded, so its comments
// and layout stay. A table memctl did not write is left as it is.
func codexMCP(p Place, abs, shown string, on bool) (Result, error) {
	res := Result{File: shown}
	cur, err := readSettings(abs, shown)
	if err != nil || cur.skip != "" {
		res.Warning = cur.skip
		return res, err
	}
	data := cur.data
	st, err := codexState(data)
	if err != nil {
		return res, &FileError{File: shown, Err: err}
	}
	var out []byte
	switch {
	case on && st == Installed, !on && st == NotInstalled:
		return res, nil
	case st == Outdated:
		res.Warning = fmt.Sprintf("%s has an [mcp_servers.memctl] table memctl did not write; left as it is: make it read\n%s", shown, codexBlock)
		return res, nil
	case on && inlineServersRE.Match(data):
		// mcp_servers given as a key (an inline table, dotted keys): a
		// [mcp_servers.memctl] table after it is an error to Codex's
		// strict TOML reader, though not to every reader.
		res.Warning = fmt.Sprintf("%s defines mcp_servers as a key, not a table; memctl cannot add to it safely: add this table by hand:\n%s", shown, codexBlock)
		return res, nil
	case on:
		out = append([]byte(nil), data...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		}
		out = append(out, codexBlock...)
	default:
		i := bytes.Index(data, []byte(codexBlock))
		if i < 0 || i > 0 && data[i-1] != '\n' {
			res.Warning = fmt.Sprintf("%s: memctl's [mcp_servers.memctl] table is not as memctl wrote it; remove it by hand", shown)
			return res, nil
		}
		start := i
		if start >= 2 && data[start-1] == '\n' && data[start-2] == '\n' {
			start-- // the blank line memctl put before it
		}
		out = append(append([]byte(nil), data[:start]...), data[i+len(codexBlock):]...)
	}
	if st, err := codexState(out); err != nil || (st == Installed) != on {
		res.Warning = fmt.Sprintf("%s: memctl cannot change this file safely; add or remove this table by hand:\n%s", shown, codexBlock)
		return res, nil
	}
	res.Changed = true
	if len(bytes.TrimSpace(out)) == 0 {
		// Nothing but memctl's table was in it: no backup.
		res.Removed = true
		return res, os.Remove(abs)
	}
	if cur.existed {
		if res.Backup, err = p.backup(abs, shown, cur); err != nil {
			return res, err
		}
	}
	if _, err := fsx.MkdirAll(filepath.Dir(abs)); err != nil {
		return res, err
	}
	return res, fsx.WriteFile(abs, out, p.newFileMode())
}
