package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/hooks"
)

// hooks checks each agent runtime's project settings for memctl's hooks
// (as memctl hooks status reads them) and its MCP registration: outdated
// hooks are a problem Fix repairs as memctl hooks install would (a backup
// first, every other entry kept); a file that cannot be read is a problem
// for a person; no runtime at all is a warning, since memctl works
// without hooks, only agents do not get its context by themselves.
func (c *collector) hooks(ws *config.Workspace) {
	place := hooks.Place{Scope: hooks.Project, Root: ws.Root, BackupDir: backupDir(ws.Repo)}
	var installed []string
	for _, rt := range hooks.Runtimes {
		rep := hooks.Status(rt, place)
		switch rep.State {
		case hooks.Installed:
			installed = append(installed, rt.Name)
			c.add(Check{ID: IDHooks, Status: OK, File: rep.File, Message: rt.Name + ": memctl's hooks are installed"})
		case hooks.Outdated:
			installed = append(installed, rt.Name)
			c.add(Check{ID: IDHooks, Status: Problem, File: rep.File,
				Message: rt.Name + ": memctl's hooks differ from what this memctl installs (an older memctl, or edited)",
				Hint:    "memctl doctor --fix (or memctl hooks install " + rt.Name + ") rewrites memctl's entries, every other entry kept", Fixable: true,
				fix: func(_ context.Context, f *fixer) (string, error) {
					res, err := hooks.Install(rt, place, hooks.Options{})
					if err != nil {
						return "", err
					}
					var did []string
					for _, r := range res {
						switch {
						case r.Warning != "":
							return "", fmt.Errorf("%s", r.Warning)
						case r.Changed:
							did = append(did, "rewrote memctl's hooks in "+r.File+savedNote(r.Backup))
						}
					}
					return strings.Join(did, "; "), nil
				}})
		case hooks.Unknown:
			c.add(Check{ID: IDHooks, Status: Problem, File: rep.File, Message: rt.Name + ": " + rep.Problem,
				Hint: "fix the file by hand (memctl never rewrites a file it cannot read), then run memctl hooks status"})
		}
		if rep.State == hooks.NotInstalled || rep.State == hooks.Unknown {
			continue
		}
		if m := hooks.MCPStatus(rt, place); m.State == hooks.Outdated || m.State == hooks.Unknown {
			msg := rt.Name + ": memctl's MCP server entry differs from what this memctl registers"
			if m.Problem != "" {
				msg = rt.Name + ": " + m.Problem
			}
			c.add(Check{ID: IDHooks, Status: Warn, File: m.File, Message: msg,
				Hint: "memctl hooks install " + rt.Name + " --mcp rewrites it"})
		}
	}
	if len(installed) == 0 {
		c.add(Check{ID: IDHooks, Status: Warn, Message: "no agent runtime runs memctl's hooks: agents start without memctl's context and their sessions are not recorded",
			Hint: "memctl hooks install claude (or codex, gemini, cursor, opencode); memctl help agents"})
	}
}
