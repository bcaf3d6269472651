package doctor

import (
	"context"
	"fmt"

	"github.com/memctl/memctl/internal/config"
)

// ignoreFiles checks that git ignores the temporaries of interrupted
// writes in .ledger and .beads (config.IgnoreLine, which init writes). A
// warning: it matters only after a crash, and temps reports any that are
// there. Fix adds the line, after backing up a file that exists (bd
// writes its own .beads/.gitignore, which a person may have edited).
func (c *collector) ignoreFiles(ws *config.Workspace) {
	for _, rel := range config.IgnoreFiles {
		if rel == config.BeadsDir+"/.gitignore" && !ws.Config.Tasks.Enabled {
			continue
		}
		ok, err := config.HasIgnore(ws.Root, rel)
		switch {
		case err != nil:
			c.add(Check{ID: IDIgnore, Status: Warn, File: rel, Message: err.Error(), Hint: "make it readable"})
		case ok:
			c.add(Check{ID: IDIgnore, Status: OK, File: rel, Message: "git ignores the temporaries of interrupted writes here"})
		default:
			c.add(Check{ID: IDIgnore, Status: Warn, File: rel,
				Message: fmt.Sprintf("has no line %s: git add -A would commit the temporaries an interrupted write leaves", config.IgnoreLine),
				Hint:    "memctl doctor --fix (or memctl init) adds it; commit it", Fixable: true,
				fix: func(_ context.Context, f *fixer) (string, error) {
					saved, err := f.backup(rel)
					if err != nil {
						return "", err
					}
					if _, _, err := config.EnsureIgnore(f.repo.Root, rel); err != nil {
						return "", err
					}
					return "added " + config.IgnoreLine + savedNote(saved) + "; commit it", nil
				}})
		}
	}
}
