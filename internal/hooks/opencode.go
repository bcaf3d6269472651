package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/fsx"
)

// pluginMarker is the first line of the OpenCode plugin memctl writes: a
// file that starts with it is memctl's to replace or remove.
const pluginMarker = "// memctl: written by `memctl hooks install opencode`"

// plugin is the OpenCode plugin memctl installs. OpenCode has no shell
// hooks: a plugin's handlers run in OpenCode's Bun runtime, and this one
// shells out to memctl's hook adapter with a hook-shaped JSON input, as
// the other runtimes do. Before a compaction it records the session and
// adds the context pack to what the compaction keeps; after one, and
// whenever the session goes idle, it records the session. Every call
// ignores memctl's failures: a hook must never break the agent.
var plugin = pluginText(false)

// pluginTriggered is plugin with the triggered layer (install
// --triggered): after an edit, a write or a patch, what broke before in
// its files; after a command, the command recorded at once and, when it
// failed, its playbook. OpenCode's tool.execute.before can only block a
// tool, so both come after the tool, added to its result (what the model
// reads); the arguments are kept from before the tool for versions whose
// tool.execute.after does not pass them.
var pluginTriggered = pluginText(true)

func pluginText(triggered bool) string {
	head := pluginMarker + `; ` + "`memctl hooks uninstall opencode`" + ` removes it.
// It runs memctl's hook adapter (memctl help agents, "Hooks, per runtime").
const hook = async ($, directory, event, sessionID, extra) => {
  const input = JSON.stringify({ session_id: sessionID ?? "", cwd: directory, hook_event_name: event, ...extra })
  try {
    return await $` + "`memctl hook opencode ${event} < ${new Response(input)}`" + `.cwd(directory).quiet().nothrow().text()
  } catch {
    return ""
  }
}
`
	if triggered {
		head += `
// The tools whose calls memctl looks at, and their arguments by call.
const tools = new Set(["edit", "write", "multiedit", "apply_patch", "bash"])
const calls = new Map()
// A command's output as memctl reads it: the head and the tail of a long one.
const cut = (s) => (typeof s !== "string" ? "" : s.length <= 65536 ? s : s.slice(0, 32768) + "\n…\n" + s.slice(-32768))
`
	}
	body := `
export const MemctlPlugin = async ({ $, directory }) => ({
  "experimental.session.compacting": async (input, output) => {
    await hook($, directory, "pre-compact", input.sessionID)
    const text = await hook($, directory, "session-start", input.sessionID)
    if (text.trim() !== "") output.context.push(text)
  },
  event: async ({ event }) => {
    if (event.type === "session.compacted") await hook($, directory, "post-compact", event.properties?.sessionID)
    if (event.type === "session.idle") await hook($, directory, "stop", event.properties?.sessionID)
  },
`
	if triggered {
		body += `  "tool.execute.before": async (input, output) => {
    if (!tools.has(input.tool)) return
    if (calls.size > 1000) calls.clear() // calls that failed never come back
    calls.set(input.callID, output.args)
  },
  "tool.execute.after": async (input, output) => {
    try {
      const args = input.args ?? calls.get(input.callID)
      calls.delete(input.callID)
      if (!tools.has(input.tool) || !args) return
      // What memctl reads: the command, or the file and the patch (not a
      // write's whole content).
      const toolInput = input.tool === "bash" ? { command: args.command } : { filePath: args.filePath, patchText: args.patchText }
      const response = input.tool === "bash" ? { exit: output.metadata?.exit ?? null, output: cut(output.output) } : undefined
      const text = await hook($, directory, "post-tool-use", input.sessionID, { tool_name: input.tool, tool_input: toolInput, tool_response: response })
      if (text.trim() !== "" && typeof output.output === "string") output.output = output.output.replace(/\s+$/, "") + "\n\n" + text.trim()
    } catch {}
  },
`
	}
	return head + body + "})\n"
}

// pluginState tells memctl's plugin, current (with the triggered layer
// or without) or older, from another file.
func pluginState(data []byte) string {
	switch {
	case bytes.Equal(data, []byte(plugin)), bytes.Equal(data, []byte(pluginTriggered)):
		return Installed
	case bytes.HasPrefix(data, []byte(pluginMarker)):
		return Outdated
	}
	return NotInstalled
}

var errForeignPlugin = errors.New("was not written by memctl (its first line is not memctl's); move it away, then run memctl hooks install opencode again")

// installPlugin writes memctl's plugin: with the triggered layer when
// triggered asks for it or the plugin there has it already.
func installPlugin(rt *Runtime, p Place, triggered bool) (Result, error) {
	abs, shown := rt.File(p)
	res := Result{File: shown}
	cur, err := readSettings(abs, shown)
	if err != nil || cur.skip != "" {
		res.Warning = cur.skip
		return res, err
	}
	want := plugin
	if triggered || cur.existed && pluginState(cur.data) != NotInstalled && bytes.Contains(cur.data, []byte(`"tool.execute.after"`)) {
		want = pluginTriggered // memctl's, with the tool handlers (this memctl's or an older one's): kept
	}
	if cur.existed {
		switch {
		case bytes.Equal(cur.data, []byte(want)):
			return res, nil
		case pluginState(cur.data) == NotInstalled:
			return res, &FileError{File: shown, Err: errForeignPlugin}
		}
		if res.Backup, err = p.backup(abs, shown, cur); err != nil {
			return res, err
		}
	}
	if _, err := fsx.MkdirAll(filepath.Dir(abs)); err != nil {
		return res, err
	}
	res.Changed = true
	return res, fsx.WriteFile(abs, []byte(want), p.newFileMode())
}

func uninstallPlugin(rt *Runtime, p Place) (Result, error) {
	abs, shown := rt.File(p)
	res := Result{File: shown}
	cur, err := readSettings(abs, shown)
	switch {
	case err != nil || !cur.existed:
		return res, err
	case cur.skip != "":
		res.Warning = cur.skip
		return res, nil
	case pluginState(cur.data) == NotInstalled:
		res.Warning = shown + " was not written by memctl; left as it is"
		return res, nil
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("remove %s: %w", shown, err)
	}
	res.Changed, res.Removed = true, true
	return res, nil
}
