package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
)

// States of an installation.
const (
	NotInstalled = "not_installed"
	Installed    = "installed" // exactly what install writes
	Outdated     = "outdated"  // memctl's entries differ from what install writes
	Unknown      = "unknown"   // the file cannot be read: see Report.Problem
)

// FileError is a settings file memctl cannot read or will not change.
type FileError struct {
	File string // as shown: relative to the repository, or under ~
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Result is what Install or Uninstall did to one file.
type Result struct {
	File    string // as shown
	Changed bool
	Removed bool   // the file was deleted: nothing but memctl's entries was in it
	Backup  string // the backup written, as shown; "" for none
	Warning string // why nothing was written although something should have been
}

// Report is the state of one runtime's hooks in one scope.
type Report struct {
	Runtime, Scope string
	File           string // as shown
	State          string
	Problem        string // why the state is Unknown
	// Triggered: the tool events are installed too (State Installed).
	Triggered bool
}

// Status reads what rt's settings file in p holds of memctl's hooks. It
// writes nothing and reads through symbolic links.
func Status(rt *Runtime, p Place) Report {
	abs, shown := rt.File(p)
	triggered := false
	rep := report(rt, p, abs, shown, func(data []byte) (string, error) {
		if rt.hooks == nil {
			triggered = bytes.Equal(data, []byte(pluginTriggered))
			return pluginState(data), nil
		}
		root, err := parseObject(data)
		if err != nil {
			return "", err
		}
		triggered = rt.hasTriggered(root)
		return rt.state(root, triggered)
	})
	rep.Triggered = triggered && rep.State == Installed
	return rep
}

// report is the Report of the file at abs (shown as shown): not
// installed when it does not exist, else what state makes of its bytes,
// and Unknown with the problem when it cannot be read or judged.
func report(rt *Runtime, p Place, abs, shown string, state func([]byte) (string, error)) Report {
	rep := Report{Runtime: rt.Name, Scope: p.Scope, File: shown, State: NotInstalled}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return rep
	}
	if err == nil {
		rep.State, err = state(data)
	}
	if err != nil {
		rep.State, rep.Problem = Unknown, err.Error()
	}
	return rep
}

// Options say what Install and Uninstall do beyond the hooks.
type Options struct {
	// MCP also registers (or removes) `memctl mcp` in the runtime's MCP
	// configuration.
	MCP bool
	// Triggered also installs the tool events (the triggered layer:
	// pre-tool-use, post-tool-use). Without it, an install keeps them
	// where they are already installed; uninstall removes them always.
	Triggered bool
}

// Install merges memctl's entries into rt's settings file in p, keeping
// every other key and entry: entries of an older memctl (any handler
// whose command runs memctl) are replaced. A file already holding exactly
// them is not written; a changed file is first backed up (Place.backup).
// A file that is not JSON is an error and is left as it is; a symbolic
// link is not written through (Result.Warning says so). With opts.MCP it
// then registers memctl's MCP server. There is one Result per file
// handled; a file that could not be changed is the error, and has none.
func Install(rt *Runtime, p Place, opts Options) ([]Result, error) {
	return apply(rt, p, opts, true)
}

// Uninstall removes memctl's entries from rt's settings file in p (event
// arrays and groups left empty go too, every other key stays); a file
// left with nothing in it is removed. With opts.MCP it also removes
// memctl's MCP server.
func Uninstall(rt *Runtime, p Place, opts Options) ([]Result, error) {
	return apply(rt, p, opts, false)
}

func apply(rt *Runtime, p Place, opts Options, on bool) ([]Result, error) {
	hooksAbs, _ := rt.File(p)
	mcpAbs, _ := rt.MCPFile(p)
	both := opts.MCP && hooksAbs == mcpAbs && rt.hooks != nil
	var res Result
	var err error
	switch {
	case rt.hooks == nil && on:
		res, err = installPlugin(rt, p, opts.Triggered)
	case rt.hooks == nil:
		res, err = uninstallPlugin(rt, p)
	default:
		res, err = rewrite(rt, p, func(root *object) error {
			if err := rt.setHooks(root, on, opts.Triggered || on && rt.hasTriggered(root)); err != nil || !both {
				return err
			}
			return rt.setMCP(root, on)
		})
	}
	if err != nil {
		return nil, err
	}
	out := []Result{res}
	if !opts.MCP || both {
		return out, nil
	}
	if res, err = registerMCP(rt, p, on); err != nil {
		return out, err
	}
	return append(out, res), nil
}

// setHooks puts memctl's entries into root (on; with the triggered ones
// when triggered) or takes them all out.
func (rt *Runtime) setHooks(root *object, on, triggered bool) error {
	st, err := rt.state(root, triggered)
	if err != nil || on && st == Installed || !on && st == NotInstalled {
		return err // nothing to do: the file stays as it is
	}
	rt.strip(root)
	if on {
		rt.add(root, triggered)
	}
	return nil
}

// hasTriggered reports whether root holds any of memctl's handlers on a
// triggered event.
func (rt *Runtime) hasTriggered(root *object) bool {
	got, _ := rt.ours(root)
	return slices.ContainsFunc(got, func(g found) bool {
		return slices.ContainsFunc(rt.triggered, func(e hookEntry) bool { return e.Event == g.event })
	})
}

// rewrite reads the JSON file of rt in p, lets change edit it, and writes
// it back if it changed (after a backup), or removes it if change left
// nothing that is not memctl's.
func rewrite(rt *Runtime, p Place, change func(*object) error) (Result, error) {
	abs, shown := rt.File(p)
	return rewriteFile(p, abs, shown, rt.version, change)
}

func rewriteFile(p Place, abs, shown string, version int, change func(*object) error) (Result, error) {
	res := Result{File: shown}
	cur, err := readSettings(abs, shown)
	if err != nil || cur.skip != "" {
		res.Warning = cur.skip
		return res, err
	}
	root, err := parseObject(cur.data)
	if err != nil {
		return res, &FileError{File: shown, Err: err}
	}
	if err := change(root); err != nil {
		return res, &FileError{File: shown, Err: err}
	}
	out := encode(root)
	switch {
	case cur.existed && bytes.Equal(out, cur.data), !cur.existed && isEmpty(root, version):
		return res, nil
	case cur.existed && equalJSON(cur.data, root):
		return res, nil // only the layout would change: leave the file as it is
	}
	res.Changed = true
	if isEmpty(root, version) {
		// Nothing but memctl's was in it: no backup, install writes it again.
		res.Removed = true
		if err := os.Remove(abs); err != nil {
			return res, fmt.Errorf("remove %s: %w", shown, err)
		}
		return res, nil
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

// equalJSON reports whether data parses to the same JSON as root.
func equalJSON(data []byte, root *object) bool {
	old, err := parseObject(data)
	return err == nil && equal(old, root)
}

// isEmpty reports whether root holds nothing but what memctl adds: no key,
// or only the version a runtime's file carries.
func isEmpty(root *object, version int) bool {
	if len(root.keys) == 0 {
		return true
	}
	v, ok := root.get("version")
	return version != 0 && len(root.keys) == 1 && ok && equal(v, version)
}

// isMemctl reports whether a command's program is memctl, by name or by a
// path (memctl.exe too).
func isMemctl(program string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(strings.Trim(program, `"'`), `\`, "/")))
	return strings.TrimSuffix(base, ".exe") == "memctl"
}

// commandWords are a handler's command split at white space, followed by
// its args (the exec form: "command": "memctl", "args": ["hook", …]).
func commandWords(o *object) []string {
	cmd, _ := o.vals["command"].(string)
	words := strings.Fields(cmd)
	args, _ := o.vals["args"].([]any)
	for _, a := range args {
		if s, ok := a.(string); ok {
			words = append(words, s)
		}
	}
	return words
}

// isOurs reports whether handler, in event's array, is one memctl owns:
// on an event install hooks, `memctl hook <this runtime> …` (memctl by any
// path) or `memctl flush …`, the line docs/runs.md had people paste before
// install existed. A user's own memctl command (memctl recall on
// UserPromptSubmit), or one on another event, is not memctl's to change.
func (rt *Runtime) isOurs(event string, handler any) bool {
	o, ok := handler.(*object)
	if !ok || !rt.installs(event) {
		return false
	}
	w := commandWords(o)
	if len(w) < 2 || !isMemctl(w[0]) {
		return false
	}
	return w[1] == "flush" || len(w) >= 3 && w[1] == "hook" && w[2] == rt.Name
}

// installs reports whether install hooks memctl to event.
func (rt *Runtime) installs(event string) bool {
	return slices.ContainsFunc(rt.entries(true), func(e hookEntry) bool { return e.Event == event })
}

// hooksObject is root's "hooks" object (nil when there is none), or an
// error when it is something else.
func (rt *Runtime) hooksObject(root *object) (*object, error) {
	v, ok := root.get("hooks")
	if !ok {
		return nil, nil
	}
	h, ok := v.(*object)
	if !ok {
		return nil, errors.New(`"hooks" is not an object; fix or remove it, then run memctl hooks install again`)
	}
	return h, nil
}

// found is one memctl handler in a settings file.
type found struct {
	event   string
	matcher any // the group's matcher; nil when absent (or flat)
	hasM    bool
	handler any
}

// ours lists the memctl handlers in root, event by event.
func (rt *Runtime) ours(root *object) ([]found, error) {
	h, err := rt.hooksObject(root)
	if h == nil || err != nil {
		return nil, err
	}
	var out []found
	for _, ev := range h.keys {
		list, isList := h.vals[ev].([]any)
		if !isList && rt.installs(ev) {
			// An event memctl installs holds something else: rewriting it
			// would drop what is there, so the file is refused as it is.
			return nil, fmt.Errorf(`"hooks"."%s" is not an array; fix or remove it, then run memctl hooks install again`, ev)
		}
		for _, item := range list {
			if rt.flat {
				if rt.isOurs(ev, item) {
					out = append(out, found{event: ev, handler: item})
				}
				continue
			}
			g, ok := item.(*object)
			if !ok {
				continue
			}
			m, hasM := g.get("matcher")
			handlers, _ := g.vals["hooks"].([]any)
			for _, x := range handlers {
				if rt.isOurs(ev, x) {
					out = append(out, found{event: ev, matcher: m, hasM: hasM, handler: x})
				}
			}
		}
	}
	return out, nil
}

// state compares memctl's handlers in root with what install writes
// (with the triggered entries, or without).
func (rt *Runtime) state(root *object, triggered bool) (string, error) {
	got, err := rt.ours(root)
	if err != nil || len(got) == 0 {
		return NotInstalled, err
	}
	want := rt.entries(triggered)
	if len(got) != len(want) {
		return Outdated, nil
	}
	if !rt.versionOK(root) {
		return Outdated, nil
	}
	for _, want := range want {
		match := false
		for _, g := range got {
			if g.event == want.Event && equal(g.handler, rt.handler(want)) && rt.matcherOK(g, want) {
				match = true
				break
			}
		}
		if !match {
			return Outdated, nil
		}
	}
	return Installed, nil
}

// versionOK reports whether root carries the version rt's file must
// (Cursor: 1), or a later one, which is the runtime's to write and is
// left alone.
func (rt *Runtime) versionOK(root *object) bool {
	if rt.version == 0 {
		return true
	}
	v, _ := root.get("version")
	n, err := strconv.Atoi(numText(v))
	return err == nil && n >= rt.version
}

// matcherOK reports whether g's group has the matcher install gives e.
func (rt *Runtime) matcherOK(g found, e hookEntry) bool {
	m := rt.matcherOf(e)
	switch {
	case rt.flat:
		return true
	case m == nil:
		return !g.hasM
	}
	return g.hasM && equal(g.matcher, *m)
}

// matcherOf is the matcher install gives e's group: its own, else the
// runtime's.
func (rt *Runtime) matcherOf(e hookEntry) *string {
	if e.Matcher != nil {
		return e.Matcher
	}
	return rt.matcher
}

// handler is the handler object install writes for e.
func (rt *Runtime) handler(e hookEntry) *object {
	h := newObject()
	if !rt.flat {
		h.set("type", "command")
	}
	h.set("command", e.Command)
	if rt.flat && e.Matcher != nil {
		h.set("matcher", *e.Matcher) // Cursor: each handler its own
	}
	if e.Timeout > 0 {
		h.set("timeout", e.Timeout)
	}
	if e.Async {
		h.set("async", true)
	}
	return h
}

// strip removes memctl's handlers (isOurs) from root; a group, an event's
// array and the hooks object that held only memctl's handlers go too. A
// hooks object that was empty before stays.
func (rt *Runtime) strip(root *object) {
	h, _ := rt.hooksObject(root)
	if h == nil {
		return
	}
	stripped := false
	for _, ev := range append([]string(nil), h.keys...) {
		list, ok := h.vals[ev].([]any)
		if !ok || !rt.installs(ev) {
			continue
		}
		kept := make([]any, 0, len(list))
		removed := false
		for _, item := range list {
			if rt.flat {
				if rt.isOurs(ev, item) {
					removed = true
					continue
				}
				kept = append(kept, item)
				continue
			}
			g, ok := item.(*object)
			if !ok {
				kept = append(kept, item) // not a group: not memctl's, kept as it is
				continue
			}
			handlers, isList := g.vals["hooks"].([]any)
			if !isList {
				kept = append(kept, item)
				continue
			}
			rest := make([]any, 0, len(handlers))
			for _, x := range handlers {
				if !rt.isOurs(ev, x) {
					rest = append(rest, x)
				}
			}
			if len(rest) == len(handlers) {
				kept = append(kept, item)
				continue
			}
			removed = true
			if len(rest) > 0 {
				g.set("hooks", rest)
				kept = append(kept, g)
			}
		}
		stripped = stripped || removed
		switch {
		case !removed:
		case len(kept) == 0:
			h.del(ev)
		default:
			h.set(ev, kept)
		}
	}
	if stripped && len(h.keys) == 0 {
		root.del("hooks")
	}
}

// add appends memctl's entries to root, which holds none.
func (rt *Runtime) add(root *object, triggered bool) {
	if rt.version != 0 && !rt.versionOK(root) {
		if _, ok := root.get("version"); !ok {
			root.setFirst("version", rt.version)
		} else {
			root.set("version", rt.version)
		}
	}
	h, _ := rt.hooksObject(root)
	if h == nil {
		h = newObject()
		root.set("hooks", h)
	}
	for _, e := range rt.entries(triggered) {
		list, _ := h.vals[e.Event].([]any)
		var item any = rt.handler(e)
		if !rt.flat {
			g := newObject()
			if m := rt.matcherOf(e); m != nil {
				g.set("matcher", *m)
			}
			g.set("hooks", []any{item})
			item = g
		}
		h.set(e.Event, append(list, item))
	}
}
