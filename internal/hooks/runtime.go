// Package hooks wires memctl into coding agents' runtimes: the
// runtime-specific side of `memctl hook <runtime> <event>` (which events
// exist, which run a run gets recorded under, the session-start envelope
// each runtime reads) and the installers behind `memctl hooks
// install|uninstall|status` that merge memctl's entries into a runtime's
// settings file, keeping every other key and entry. It never prints,
// exits or reads the clock.
package hooks

import (
	"path/filepath"
	"slices"
	"strings"
)

// The events of `memctl hook <runtime> <event>`.
const (
	SessionStart = "session-start" // print the context pack in the runtime's envelope
	PreCompact   = "pre-compact"   // flush: record the session before the context is compacted
	PostCompact  = "post-compact"  // flush, keeping the compaction's summary in the run record
	SessionEnd   = "session-end"   // flush
	Stop         = "stop"          // flush at the end of a turn (Codex, which has no session end)
	PreToolUse   = "pre-tool-use"  // before a tool runs: past failures in the files it touches (the triggered layer)
	PostToolUse  = "post-tool-use" // after a shell command: recorded at once; a failure's approved playbook, if any
)

// Events are the events, in the order the docs name them.
var Events = []string{SessionStart, PreCompact, PostCompact, SessionEnd, Stop, PreToolUse, PostToolUse}

// Scopes of an installation.
const (
	Project = "project" // the repository's settings, committed
	Global  = "global"  // the user's settings, for every repository
)

// Runtime is an agent runtime memctl installs into.
type Runtime struct {
	Name string // claude, codex, gemini, cursor, opencode: what commands take
	// RunRuntime is the runtime a run record names (agent.runtime).
	RunRuntime string
	// ProjectFile and GlobalFile are the settings file, relative to the
	// repository's root and to the home directory (slash-separated).
	ProjectFile, GlobalFile string
	// hooks are the entries install writes; nil for OpenCode (a plugin).
	hooks []hookEntry
	// triggered are the entries install --triggered adds (the tool
	// events), each with its own matcher; nil for OpenCode, whose plugin
	// has its tool handlers in the variant install --triggered writes.
	triggered []hookEntry
	// flat: the event's array holds the handlers themselves (Cursor), not
	// matcher groups of handlers (Claude Code, Codex, Gemini).
	flat bool
	// matcher is the matcher install gives each group; nil for none.
	matcher *string
	// version is a top-level "version" the file must carry (Cursor: 1).
	version int
	// mcp registers `memctl mcp` in the runtime's MCP config.
	mcp mcpSpec
}

// hookEntry is one event install hooks memctl to.
type hookEntry struct {
	Event   string // the runtime's name: SessionStart, PreCompress, sessionStart, …
	Command string // memctl hook <runtime> <event>
	Timeout int    // in the runtime's unit (Gemini: milliseconds); 0 for none
	Async   bool   // the runtime need not wait for it (side effects only)
	// Matcher is this entry's group matcher, instead of the runtime's
	// (the tool events name their tools); nil for the runtime's.
	Matcher *string
}

// Matchers of the triggered entries: the tools that write files or run
// commands, and the shell alone, by each runtime's names. Codex takes a
// matcher of letters, digits, _ and | as a list of exact names (its shell
// is Bash whatever the model calls it); Gemini CLI and Cursor test an
// unanchored regular expression against the tool's name.
var (
	editAndShellTools  = "Edit|MultiEdit|Write|NotebookEdit|Bash"
	shellTool          = "Bash"
	codexPatchAndShell = "Bash|apply_patch"
	geminiEditAndShell = "^(write_file|replace|run_shell_command)$"
	cursorEditAndShell = "^(Write|StrReplace|ApplyPatch|Shell)$"
	cursorShell        = "^Shell$"
)

// entries are the entries install writes: with the triggered ones or not.
func (rt *Runtime) entries(triggered bool) []hookEntry {
	if !triggered {
		return rt.hooks
	}
	return append(slices.Clone(rt.hooks), rt.triggered...)
}

var empty = ""

// Runtimes are the runtimes, in the order status shows them.
var Runtimes = []*Runtime{
	{
		Name: "claude", RunRuntime: "claude-code",
		ProjectFile: ".claude/settings.json", GlobalFile: ".claude/settings.json",
		// Timeouts in seconds. SessionStart has no matcher: it also fires
		// after a compaction (source compact), which is when memory is
		// lost. SessionEnd hooks share 1.5 s unless one asks for more.
		// PostCompact only records the session: async, so the agent goes
		// on without waiting for it.
		matcher: &empty,
		hooks: []hookEntry{
			{"SessionStart", "memctl hook claude session-start", 10, false, nil},
			{"PreCompact", "memctl hook claude pre-compact", 30, false, nil},
			{"PostCompact", "memctl hook claude post-compact", 30, true, nil},
			{"SessionEnd", "memctl hook claude session-end", 10, false, nil},
		},
		// The triggered layer: before an edit or a command, and after a
		// command, whether it succeeded (PostToolUse) or failed
		// (PostToolUseFailure).
		triggered: []hookEntry{
			{"PreToolUse", "memctl hook claude pre-tool-use", 10, false, &editAndShellTools},
			{"PostToolUse", "memctl hook claude post-tool-use", 10, false, &shellTool},
			{"PostToolUseFailure", "memctl hook claude post-tool-use", 10, false, &shellTool},
		},
		mcp: mcpSpec{file: ".mcp.json", kind: mcpServersJSON, globalNote: "claude mcp add --scope user memctl -- memctl mcp", globalState: ".claude.json"},
	},
	{
		Name: "codex", RunRuntime: "codex",
		ProjectFile: ".codex/hooks.json", GlobalFile: ".codex/hooks.json",
		// Codex has no session end: Stop, at the end of every turn, is the
		// last chance to record the session; its output must be JSON.
		hooks: []hookEntry{
			{"SessionStart", "memctl hook codex session-start", 10, false, nil},
			{"PreCompact", "memctl hook codex pre-compact", 30, false, nil},
			{"PostCompact", "memctl hook codex post-compact", 30, false, nil},
			{"Stop", "memctl hook codex stop", 30, false, nil},
		},
		// Before a patch or a command, and after a command (Codex has no
		// failure event: PostToolUse, without the exit status).
		triggered: []hookEntry{
			{"PreToolUse", "memctl hook codex pre-tool-use", 10, false, &codexPatchAndShell},
			{"PostToolUse", "memctl hook codex post-tool-use", 10, false, &shellTool},
		},
		mcp: mcpSpec{file: ".codex/config.toml", globalFile: ".codex/config.toml", kind: mcpCodexTOML},
	},
	{
		Name: "gemini", RunRuntime: "gemini",
		ProjectFile: ".gemini/settings.json", GlobalFile: ".gemini/settings.json",
		// Timeouts in milliseconds. PreCompress is advisory and cannot add
		// context, but it is the last moment before the context is cut.
		hooks: []hookEntry{
			{"SessionStart", "memctl hook gemini session-start", 10000, false, nil},
			{"PreCompress", "memctl hook gemini pre-compact", 30000, false, nil},
			{"SessionEnd", "memctl hook gemini session-end", 10000, false, nil},
		},
		// After an edit (BeforeTool drops additionalContext, so an edit's
		// warning comes with its result) and after a command.
		triggered: []hookEntry{
			{"AfterTool", "memctl hook gemini post-tool-use", 10000, false, &geminiEditAndShell},
		},
		mcp: mcpSpec{file: ".gemini/settings.json", globalFile: ".gemini/settings.json", kind: mcpServersJSON},
	},
	{
		Name: "cursor", RunRuntime: "cursor",
		ProjectFile: ".cursor/hooks.json", GlobalFile: ".cursor/hooks.json",
		flat: true, version: 1,
		hooks: []hookEntry{
			{"sessionStart", "memctl hook cursor session-start", 0, false, nil},
			{"preCompact", "memctl hook cursor pre-compact", 0, false, nil},
			{"sessionEnd", "memctl hook cursor session-end", 0, false, nil},
		},
		// After an edit or a command that exited 0 (postToolUse, whose
		// additional_context Cursor documents), and after a command that
		// failed. preToolUse is a permission gate: an answer without a
		// decision blocks the tool in some builds, "allow" may skip the
		// user's approval; memctl does not hook it.
		triggered: []hookEntry{
			{"postToolUse", "memctl hook cursor post-tool-use", 0, false, &cursorEditAndShell},
			{"postToolUseFailure", "memctl hook cursor post-tool-use", 0, false, &cursorShell},
		},
		mcp: mcpSpec{file: ".cursor/mcp.json", globalFile: ".cursor/mcp.json", kind: mcpServersJSON},
	},
	{
		Name: "opencode", RunRuntime: "opencode",
		ProjectFile: ".opencode/plugins/memctl.js", GlobalFile: ".config/opencode/plugins/memctl.js",
		mcp: mcpSpec{file: "opencode.json", globalFile: ".config/opencode/opencode.json", kind: mcpOpenCode},
	},
}

// Lookup finds a runtime by name.
func Lookup(name string) (*Runtime, bool) {
	i := slices.IndexFunc(Runtimes, func(r *Runtime) bool { return r.Name == name })
	if i < 0 {
		return nil, false
	}
	return Runtimes[i], true
}

// Names are the runtimes' names: "claude, codex, gemini, cursor or opencode".
func Names() string {
	var names []string
	for _, r := range Runtimes {
		names = append(names, r.Name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ValidEvent reports whether e is an event of `memctl hook`.
func ValidEvent(e string) bool { return slices.Contains(Events, e) }

// Place says where an installation goes: the repository's root (Project)
// or the home directory (Global). XDGConfig is $XDG_CONFIG_HOME, which
// moves OpenCode's ~/.config; "" for the default.
type Place struct {
	Scope     string
	Root      string // the repository's root, for Project
	Home      string // the home directory, for Global
	XDGConfig string
	// BackupDir is where backups of Project files go, under the git
	// directory (<git common dir>/memctl/backups); "" keeps each next to
	// its file.
	BackupDir string
}

// path is file's absolute path in p and how to show it: relative to the
// root, or under ~.
func (p Place) path(file string) (abs, shown string) {
	if p.Scope == Project {
		return filepath.Join(p.Root, filepath.FromSlash(file)), file
	}
	if rest, ok := strings.CutPrefix(file, ".config/"); ok && p.XDGConfig != "" {
		abs = filepath.Join(p.XDGConfig, filepath.FromSlash(rest))
		if r, err := filepath.Rel(p.Home, abs); err == nil && filepath.IsLocal(r) {
			return abs, "~/" + filepath.ToSlash(r)
		}
		return abs, abs
	}
	return filepath.Join(p.Home, filepath.FromSlash(file)), "~/" + file
}

// File is where rt's hooks go in p: the absolute path and how to show it.
func (rt *Runtime) File(p Place) (abs, shown string) {
	if p.Scope == Project {
		return p.path(rt.ProjectFile)
	}
	return p.path(rt.GlobalFile)
}
