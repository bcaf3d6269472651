// Package trigger is memory inside the agent loop: before a tool edits a
// file, what broke there before (failed runs, playbooks), said once per
// file and session. The hook adapters (memctl hook <runtime>
// pre-tool-use) call it; it prints nothing and never fails the agent: a
// problem is an answer with nothing to say.
package trigger

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/runs/transcript"
)

// MaxText is the most characters a warning hands the agent: a tool call's
// context must stay small.
const MaxText = 1500

// editTools are the tools that write files, by name, with the keys of
// their arguments that name a file: Claude Code's Edit, MultiEdit, Write
// and NotebookEdit; Gemini CLI's write_file and replace; Cursor's Write
// and StrReplace (file_path in hooks, path in transcripts); OpenCode's
// edit, write and multiedit.
var editTools = map[string][]string{
	"Edit": {"file_path"}, "MultiEdit": {"file_path"}, "Write": {"file_path", "path", "filePath"}, "NotebookEdit": {"notebook_path"},
	"write_file": {"file_path"}, "replace": {"file_path"}, "edit_file": {"target_file", "file_path"},
	"StrReplace": {"file_path", "path", "filePath"},
	"edit":       {"filePath"}, "write": {"filePath"}, "multiedit": {"filePath"},
}

// patchTools take a patch in apply_patch's format: Codex's apply_patch
// (the patch in command), OpenCode's (patchText), Cursor's ApplyPatch
// (the patch text as the whole input, or in patch).
var patchTools = []string{"apply_patch", "ApplyPatch"}

// Files are the repository files a tool call touches, relative to root
// and slash-separated, sorted, each once: the file arguments of an edit,
// the files of a patch, and the words of a shell command that name an
// existing file in the repository. cwd is where relative paths start
// (the hook's cwd, else root). Files outside root are left out.
func Files(tool string, input json.RawMessage, cwd, root string) []string {
	if cwd == "" {
		cwd = root
	}
	var args map[string]any
	if len(input) > 0 && json.Unmarshal(input, &args) != nil {
		var patch string
		if !slices.Contains(patchTools, tool) || json.Unmarshal(input, &patch) != nil {
			return nil
		}
		args = map[string]any{"patch": patch}
	}
	var names []string
	var mustExist bool
	switch {
	case editTools[tool] != nil:
		for _, k := range editTools[tool] {
			if s, ok := args[k].(string); ok && s != "" {
				names = append(names, s)
			}
		}
	case slices.Contains(patchTools, tool):
		names = patchFiles(firstString(args, "input", "patch", "command", "patchText"))
	case transcript.IsShellTool(tool):
		names, mustExist = shellWords(transcript.ShellCommand(input)), true
	default:
		return nil
	}
	var out []string
	for _, n := range names {
		p := n
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if mustExist && !isFile(p) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, ".git/") || strings.HasPrefix(rel, ".ledger/") || strings.HasPrefix(rel, ".beads/") {
			continue // memctl's own files and git's: what a session records is not code that broke
		}
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// firstString is the first of keys in args that holds a string.
func firstString(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := args[k].(string); ok {
			return v
		}
	}
	return ""
}

// patchFiles are the files an apply_patch patch names.
func patchFiles(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok && rest != "" {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// shellWords are the words of a command line, without quotes and
// redirections' operators, that could be paths.
func shellWords(cmd string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '|' || r == '&' || r == '(' || r == ')' || r == '<' || r == '>'
	}) {
		w = strings.Trim(w, `"'`+"`")
		if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?$={}") {
			continue
		}
		if i := strings.IndexByte(w, ':'); i > 0 && !strings.Contains(w[:i], "/") && len(w[i:]) > 1 && w[i+1] >= '0' && w[i+1] <= '9' {
			w = w[:i] // file:line, as go test and compilers print it
		}
		out = append(out, w)
	}
	return out
}

// clip shortens s to at most n runes at a line's end where it can.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndexByte(string(r), '\n'); i > 0 {
		return string(r)[:i]
	}
	return string(r) + "…"
}
