package status

import (
	"github.com/memctl/memctl/internal/hooks"
)

// Hook says whether an agent runtime's project settings run memctl's hooks.
type Hook struct {
	Runtime string // claude, codex, gemini, cursor, opencode
	File    string // the settings file, relative to the workspace root
	// State is hooks.Installed, hooks.Outdated (memctl's entries differ
	// from what memctl hooks install writes), hooks.NotInstalled or
	// hooks.Unknown (the file cannot be read: a problem says why).
	State string
	// Installed: memctl's hooks are there, current or outdated.
	Installed bool
}

// Hooks reports per runtime what its project settings file holds of
// memctl's hooks, as memctl hooks status does (hooks.Status: one truth).
// A settings file that cannot be read or parsed is a problem.
func Hooks(root string) ([]Hook, []Problem) {
	place := hooks.Place{Scope: hooks.Project, Root: root}
	out := make([]Hook, 0, len(hooks.Runtimes))
	var problems []Problem
	for _, rt := range hooks.Runtimes {
		rep := hooks.Status(rt, place)
		if rep.State == hooks.Unknown {
			problems = append(problems, Problem{Part: "hooks", Where: rep.File, Message: rep.Problem})
		}
		out = append(out, Hook{Runtime: rt.Name, File: rep.File, State: rep.State,
			Installed: rep.State == hooks.Installed || rep.State == hooks.Outdated})
	}
	return out, problems
}
