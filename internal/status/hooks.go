package status

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Hook says whether an agent runtime's project settings run memctl.
type Hook struct {
	Runtime   string // claude, codex, gemini, cursor
	File      string // the settings file, relative to the workspace root
	Installed bool
}

// hookFiles are the runtimes' project-scope hook settings, in the order
// status shows them.
var hookFiles = []struct{ runtime, file string }{
	{"claude", ".claude/settings.json"},
	{"codex", ".codex/hooks.json"},
	{"gemini", ".gemini/settings.json"},
	{"cursor", ".cursor/hooks.json"},
}

// Hooks reports per runtime whether its settings file has a hook whose
// command runs memctl (a "command" string containing "memctl", anywhere
// in the JSON). It is a scan, not the installer's own record: a settings
// file that cannot be read or parsed is a problem, and its runtime reads
// as not installed.
func Hooks(root string) ([]Hook, []Problem) {
	out := make([]Hook, 0, len(hookFiles))
	var problems []Problem
	for _, h := range hookFiles {
		hook := Hook{Runtime: h.runtime, File: h.file}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(h.file)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			problems = append(problems, Problem{Part: "hooks", Where: h.file, Message: err.Error()})
		default:
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				problems = append(problems, Problem{Part: "hooks", Where: h.file, Message: "not JSON: " + err.Error()})
				break
			}
			hook.Installed = runsMemctl(v)
		}
		out = append(out, hook)
	}
	return out, problems
}

// runsMemctl reports whether v holds a "command" string naming memctl.
func runsMemctl(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "command" && strings.Contains(s, "memctl") {
				return true
			}
			if runsMemctl(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if runsMemctl(x) {
				return true
			}
		}
	}
	return false
}
