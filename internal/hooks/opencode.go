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
const plugin = pluginMarker + `; ` + "`memctl hooks uninstall opencode`" + ` removes it.
// It runs memctl's hook adapter (memctl help agents, "Hooks, per runtime").
const hook = async ($, directory, event, sessionID) => {
  const input = JSON.stringify({ session_id: sessionID ?? "", cwd: directory, hook_event_name: event })
  try {
    return await $` + "`memctl hook opencode ${event} < ${new Response(input)}`" + `.cwd(directory).quiet().nothrow().text()
  } catch {
    return ""
  }
}

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
})
`

// pluginState tells memctl's plugin, current or older, from another file.
func pluginState(data []byte) string {
	switch {
	case bytes.Equal(data, []byte(plugin)):
		return Installed
	case bytes.HasPrefix(data, []byte(pluginMarker)):
		return Outdated
	}
	return NotInstalled
}

var errForeignPlugin = errors.New("was not written by memctl (its first line is not memctl's); move it away, then run memctl hooks install opencode again")

func installPlugin(rt *Runtime, p Place) (Result, error) {
	abs, shown := rt.File(p)
	res := Result{File: shown}
	cur, err := readSettings(abs, shown)
	if err != nil || cur.skip != "" {
		res.Warning = cur.skip
		return res, err
	}
	if cur.existed {
		switch pluginState(cur.data) {
		case Installed:
			return res, nil
		case NotInstalled:
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
	return res, fsx.WriteFile(abs, []byte(plugin), p.newFileMode())
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
