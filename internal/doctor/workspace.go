package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/check"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

const initHint = "run memctl init: it creates what is missing and overwrites nothing"

// loadWorkspace loads repo's workspace as far as it can: without .ledger
// (reported) or with a config that does not load (reported), on the
// defaults, so that the other checks still run. ledger says whether
// .ledger is there.
func loadWorkspace(repo *gitx.Repo, c *collector) (ws *config.Workspace, ledger bool) {
	ws = &config.Workspace{Repo: repo, Root: repo.Root, Config: config.Default(config.DefaultPrefix(repo.Root))}
	fi, err := os.Stat(ws.Path(config.LedgerDir))
	if err != nil || !fi.IsDir() {
		c.add(Check{ID: IDWorkspace, Status: Problem, File: config.LedgerDir,
			Message: "no " + config.LedgerDir + " directory: memctl is not set up in this repository (or it was deleted)",
			Hint:    "run memctl init (if .ledger was deleted by mistake, git restore it first)"})
		return ws, false
	}
	cfg, warns, err := config.Load(ws.Path(config.ConfigFile), config.ConfigFile, ws.Config)
	var cerr *config.Error
	switch {
	case errors.As(err, &cerr):
		msg := cerr.Message
		if cerr.Key != "" {
			msg = fmt.Sprintf("key %q: %s", cerr.Key, msg)
		}
		c.add(Check{ID: IDConfig, Status: Problem, File: cerr.File, Line: cerr.Line, Message: msg + " (doctor went on with the defaults)",
			Hint: "fix the line: every command but doctor refuses to run until then (every key: memctl help config)"})
	case err != nil:
		c.add(Check{ID: IDConfig, Status: Problem, File: config.ConfigFile, Message: err.Error() + " (doctor went on with the defaults)",
			Hint: "make the file readable, or move it away to use the defaults"})
	default:
		ws.Config, ws.Warnings = cfg, warns
	}
	c.layout(ws)
	return ws, true
}

// layout reports what is missing of the workspace's directories and
// files; Fix creates them empty, as init would.
func (c *collector) layout(ws *config.Workspace) {
	type part struct {
		rel string
		dir bool
		on  bool
	}
	cfg := ws.Config
	parts := []part{
		{config.FactsDir, true, cfg.Facts.Enabled},
		{config.ProposalsDir, true, cfg.Facts.Enabled},
		{config.RunsDir, true, cfg.Runs.Enabled},
		{config.PlaybooksDir, true, cfg.Runs.Enabled},
		{config.IssuesFile, false, cfg.Tasks.Enabled},
	}
	var missing []string
	for _, p := range parts {
		if !p.on {
			continue
		}
		fi, err := os.Stat(ws.Path(p.rel))
		switch {
		case err != nil && !errors.Is(err, os.ErrNotExist):
			c.add(Check{ID: IDWorkspace, Status: Problem, File: p.rel, Message: err.Error(), Hint: "make it readable"})
		case err != nil:
			missing = append(missing, p.rel)
		case fi.IsDir() != p.dir:
			what := map[bool]string{true: "a directory", false: "a file"}[p.dir]
			c.add(Check{ID: IDWorkspace, Status: Problem, File: p.rel, Message: "is not " + what,
				Hint: "move it away (memctl never deletes it), then run memctl init"})
		}
	}
	if len(missing) == 0 {
		c.add(Check{ID: IDWorkspace, Status: OK, Message: "the workspace's directories and files are there"})
		return
	}
	c.add(Check{ID: IDWorkspace, Status: Problem, Message: "missing: " + strings.Join(missing, ", "),
		Hint: initHint + " (or memctl doctor --fix)", Fixable: true,
		fix: func(_ context.Context, f *fixer) (string, error) {
			for _, rel := range missing {
				path := f.ws.Path(rel)
				if rel == config.IssuesFile {
					if _, err := fsx.MkdirAll(f.ws.Path(config.BeadsDir)); err != nil {
						return "", err
					}
					if _, err := fsx.CreateFile(path, nil, 0o644); err != nil {
						return "", err
					}
					continue
				}
				if _, err := fsx.MkdirAll(path); err != nil {
					return "", err
				}
			}
			return "created " + strings.Join(missing, ", "), nil
		}})
}

// audit runs memctl check and makes its findings checks, each under the
// part of the workspace its file belongs to; a part without findings is
// one OK check. The merge driver is left to gitChecks.
func (c *collector) audit(ctx context.Context, ws *config.Workspace, now time.Time) {
	r, err := check.Run(ctx, ws, check.Options{Now: now, CI: true})
	if err != nil {
		c.add(Check{ID: "check", Status: Problem, Message: err.Error(), Hint: "fix what the message names, then run memctl check"})
		return
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		id := partOf(f.File, f.Rule)
		seen[id] = true
		st := Problem
		if f.Severity == check.Warning {
			st = Warn
		}
		ch := Check{ID: id, Status: st, Rule: f.Rule, File: f.File, Line: f.Line, Message: f.Message, Hint: f.Hint}
		if f.Rule == check.RuleAgentsBlock {
			ch.Fixable, ch.fix = agentsFix(ws)
			ch.File = config.AgentsFile
			if ch.Fixable {
				ch.Hint = "memctl doctor --fix (or memctl init) writes the current block, the text outside it kept; commit it"
			}
		}
		c.add(ch)
	}
	if !seen[IDConfig] && !c.has(IDConfig) {
		ch := Check{ID: IDConfig, Status: OK, File: config.ConfigFile, Message: "loads, every key known"}
		if _, err := os.Stat(ws.Path(config.ConfigFile)); err != nil {
			ch.File, ch.Message = "", "no "+config.ConfigFile+": the defaults apply"
		}
		c.add(ch)
	}
	cfg := ws.Config
	if cfg.Facts.Enabled && !seen[IDFacts] {
		c.add(Check{ID: IDFacts, Status: OK, File: config.FactsDir, Message: fmt.Sprintf("%d facts, %d of %d lines, %d of %d bytes", r.Facts, r.Lines, r.MaxLines, r.Bytes, r.MaxBytes)})
	}
	if cfg.Facts.Enabled && !seen[IDProposals] {
		c.add(Check{ID: IDProposals, Status: OK, File: config.ProposalsDir, Message: fmt.Sprintf("%d proposals, none pending longer than %d days", r.Proposals, cfg.Review.StaleDays)})
	}
	if cfg.Tasks.Enabled && !seen[IDIssues] {
		c.add(Check{ID: IDIssues, Status: OK, File: config.IssuesFile, Message: fmt.Sprintf("%d issues, every line a valid record", r.Issues)})
	}
	if !seen[IDAgentsBlock] {
		c.add(Check{ID: IDAgentsBlock, Status: OK, File: config.AgentsFile, Message: "has the current memctl block"})
	}
}

func (c *collector) has(id string) bool {
	for _, ch := range c.checks {
		if ch.ID == id {
			return true
		}
	}
	return false
}

// partOf is the check id of a finding: the part of the workspace its
// file is in.
func partOf(file, rule string) string {
	switch {
	case rule == check.RuleConfig || file == config.ConfigFile:
		return IDConfig
	case rule == check.RuleAgentsBlock || file == config.AgentsFile:
		return IDAgentsBlock
	case file == config.IssuesFile:
		return IDIssues
	case strings.HasPrefix(file, config.FactsDir+"/") || file == config.FactsDir:
		return IDFacts
	case strings.HasPrefix(file, config.ProposalsDir+"/"):
		return IDProposals
	case strings.HasPrefix(file, config.RunsDir+"/"):
		return IDRuns
	case strings.HasPrefix(file, config.PlaybooksDir+"/"):
		return IDPlaybooks
	}
	return rule
}
