package check

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/tasks"
)

// isMemctlFile reports whether the slash path (relative to the root) is
// one of the files memctl uses with cfg: .beads/issues.jsonl when tasks are
// enabled, run records and playbooks when runs are, the rest of .ledger/
// when facts are, and config.toml always.
func isMemctlFile(rel string, cfg config.Config) bool {
	switch {
	case rel == config.ConfigFile:
		return true
	case rel == config.IssuesFile:
		return cfg.Tasks.Enabled
	case strings.HasPrefix(rel, config.RunsDir+"/"), strings.HasPrefix(rel, config.PlaybooksDir+"/"):
		return cfg.Runs.Enabled
	}
	return cfg.Facts.Enabled && strings.HasPrefix(rel, config.LedgerDir+"/")
}

// checkUnmerged reports memctl files that a merge left unmerged in the git
// index. Such a file can look clean: when git cannot run memctl's merge
// driver it keeps our side, without markers, and a plain git add then
// drops the other side's records.
func (r *Report) checkUnmerged(ws *config.Workspace) {
	if ws.Repo == nil {
		return
	}
	paths, err := gitx.UnmergedPaths(ws.Root)
	if err != nil {
		r.add(Finding{Severity: Warning, Rule: RuleUnmerged, File: ".git/index",
			Message: fmt.Sprintf("cannot tell whether memctl files are unmerged: %v", err),
			Hint:    "run git status to see unmerged paths"})
		return
	}
	for _, u := range paths {
		if !isMemctlFile(u.Path, ws.Config) {
			continue
		}
		msg := "unmerged in the git index: a merge or pull stopped here, and the file may hold only one side"
		hint := "merge it by hand (git show :2:" + u.Path + " and :3:" + u.Path + " are the two sides), then git add it"
		if u.Path == config.IssuesFile {
			hint = "run memctl resolve to merge it record by record from the index, check the result, then git add " + u.Path
			if ok, err := tasks.IsResolved(ws.Root, u.Path); err == nil && ok {
				msg = "unmerged in the git index, but resolved: the file holds both sides merged"
				hint = "check the result (memctl list, git diff), then git add " + u.Path
			}
		}
		r.add(Finding{Severity: Error, Rule: RuleUnmerged, File: u.Path, Message: msg, Hint: hint})
	}
}

// DriverMissingMessage is what memctl says in a clone whose .gitattributes
// routes a file to merge=memctl and whose git config has no driver.
const DriverMissingMessage = "this clone has no memctl merge driver: run memctl init (once per clone)"

// checkDriver warns when .gitattributes routes a file to memctl's merge
// driver and git's config has none (a fresh clone before memctl init): git
// then merges the file as text, and stops on conflicts the driver would
// have merged. A warning, so that it fails no build.
func (r *Report) checkDriver(ctx context.Context, ws *config.Workspace) {
	if ws.Repo == nil || !ws.Config.Tasks.Enabled {
		return
	}
	missing, err := gitx.DriverMissing(ctx, ws.Root)
	if err != nil || !missing {
		return
	}
	r.add(Finding{Severity: Warning, Rule: RuleMergeDriver, File: config.AttrsFile,
		Message: DriverMissingMessage,
		Hint:    "git merges " + config.IssuesFile + " as text until then; memctl init registers the driver in .git/config and changes nothing else that exists"})
}

// checkMarkers reports conflict-marker lines in the files under .ledger/,
// when facts are enabled. Proposals are left out: a marker line makes a
// proposal invalid JSON, which proposal-json reports, and reading a
// thousand of them twice is most of check's time. (.beads/issues.jsonl has
// its own line-by-line check; a config.toml with markers does not load.)
func (r *Report) checkMarkers(ws *config.Workspace) error {
	if !ws.Config.Facts.Enabled && !ws.Config.Runs.Enabled {
		return nil
	}
	root := ws.Path(config.LedgerDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() && p == ws.Path(config.ProposalsDir) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(ws.Root, p)
		rel = filepath.ToSlash(rel)
		// A file of a layer switched off is not memctl's to check (run
		// records and playbooks go with [runs], the rest with [facts]).
		if !d.Type().IsRegular() || !isMemctlFile(rel, ws.Config) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range gitx.ConflictMarkers(data) {
			r.add(Finding{Severity: Error, Rule: RuleConflictMarkers, File: rel, Line: line,
				Message: "a merge conflict marker: this file was not merged",
				Hint:    "keep what each side meant between <<<<<<< and >>>>>>>, delete the marker lines, then git add the file"})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("look for conflict markers in %s: %w", config.LedgerDir, err)
	}
	return nil
}
