package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/agents"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// gitChecks checks what git needs to merge .beads/issues.jsonl with
// memctl: the line in .gitattributes and a merge driver git can run.
func (c *collector) gitChecks(ctx context.Context, ws *config.Workspace) {
	if !ws.Config.Tasks.Enabled {
		return
	}
	c.attributes(ws)
	err := gitx.CheckMergeDriver(ctx, ws.Root)
	var de *gitx.DriverError
	fix := func(ctx context.Context, f *fixer) (string, error) {
		if _, err := gitx.RegisterMergeDriver(ctx, f.repo.Root); err != nil {
			return "", err
		}
		return "registered merge.memctl.driver in .git/config, pointing at this memctl", nil
	}
	switch {
	case err == nil:
		c.add(Check{ID: IDMergeDriver, Status: OK, File: ".git/config", Message: "git runs memctl's merge driver for " + config.IssuesFile})
	case errors.Is(err, gitx.ErrDriverUnset):
		c.add(Check{ID: IDMergeDriver, Status: Problem, File: ".git/config",
			Message: "this clone has no memctl merge driver: git merges " + config.IssuesFile + " as text, and a pull that changes it on both sides stops with the file unmerged",
			Hint:    "memctl doctor --fix (or memctl init) registers it, once per clone", Fixable: true, fix: fix})
	case errors.As(err, &de):
		c.add(Check{ID: IDMergeDriver, Status: Problem, File: ".git/config", Message: de.Error(),
			Hint: "memctl doctor --fix points merge.memctl.driver at this memctl (if git reads it from another config, an include or GIT_CONFIG_*, fix it there)", Fixable: true, fix: fix})
	default:
		c.add(Check{ID: IDMergeDriver, Status: Problem, File: ".git/config", Message: "cannot tell whether git can run the merge driver: " + err.Error(),
			Hint: "check that git works in this repository (git status)"})
	}
}

// attributes checks the merge line in .gitattributes; Fix adds it, after
// backing the file up.
func (c *collector) attributes(ws *config.Workspace) {
	ok, err := config.HasAttrs(ws.Root)
	switch {
	case err != nil:
		c.add(Check{ID: IDAttributes, Status: Problem, File: config.AttrsFile, Message: err.Error(), Hint: "make it readable"})
	case ok:
		c.add(Check{ID: IDAttributes, Status: OK, File: config.AttrsFile, Message: "routes " + config.IssuesFile + " to memctl's merge driver"})
	default:
		c.add(Check{ID: IDAttributes, Status: Problem, File: config.AttrsFile,
			Message: "has no line " + config.AttrsLine + ": git merges the task file as text",
			Hint:    "memctl doctor --fix (or memctl init) adds the line; commit it", Fixable: true,
			fix: func(_ context.Context, f *fixer) (string, error) {
				saved, err := f.backup(config.AttrsFile)
				if err != nil {
					return "", err
				}
				res, err := config.EnsureAttrs(f.repo.Root)
				if err != nil {
					return "", err
				}
				if len(res.Warnings) > 0 {
					return "", errors.New(res.Warnings[0])
				}
				return "added " + config.AttrsLine + savedNote(saved), nil
			}})
	}
}

func savedNote(saved string) string {
	if saved == "" {
		return ""
	}
	return " (the file as it was: " + saved + ")"
}

// agentsFix is the repair of the AGENTS.md block, when one is safe: the
// block is written or refreshed and the text outside it kept, after a
// backup. A broken block (two, or a begin without an end) is a person's
// to mend.
func agentsFix(ws *config.Workspace) (bool, func(context.Context, *fixer) (string, error)) {
	if agents.Plan(ws.Root) != nil {
		return false, nil
	}
	return true, func(_ context.Context, f *fixer) (string, error) {
		path := f.ws.Path(config.AgentsFile)
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			if err := fsx.WriteFile(path, []byte(agents.Block()), 0o644); err != nil {
				return "", err
			}
			return "wrote AGENTS.md with the memctl block; commit it", nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("AGENTS.md is a symbolic link; memctl does not write through links")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		out, changed, err := agents.Upsert(data)
		if err != nil || !changed {
			return "", err
		}
		saved, err := f.backup(config.AgentsFile)
		if err != nil {
			return "", err
		}
		if err := fsx.WriteFile(path, out, fi.Mode().Perm()); err != nil {
			return "", err
		}
		return "wrote the current memctl block into AGENTS.md, the text outside it kept" + savedNote(saved) + "; commit it", nil
	}
}
