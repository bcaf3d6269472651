package check

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
)

// checkPlaybooks checks the playbook files, when runs are enabled: what
// does not parse, a heading whose signature is not the file's name,
// secrets and control characters. Conflict markers are checkMarkers'.
func (r *Report) checkPlaybooks(ws *config.Workspace) error {
	if !ws.Config.Runs.Enabled {
		return nil
	}
	names, err := ledger.PlaybookNames(ws.Path(config.PlaybooksDir), config.PlaybooksDir)
	if err != nil {
		return err
	}
	for _, name := range names {
		rel := path.Join(config.PlaybooksDir, name)
		src, err := os.ReadFile(ws.Path(rel))
		if err != nil {
			return fmt.Errorf("read playbook %s: %w", rel, err)
		}
		p := ledger.ParsePlaybook(rel, src)
		found, err := checkText(rel, src, func(n int) string { return playbookAt(p, n) })
		if err != nil {
			return err
		}
		r.Findings = append(r.Findings, found...)
		for _, prob := range p.Problems {
			if prob.Conflict {
				continue // checkMarkers reports every marker line
			}
			r.add(Finding{Severity: Error, Rule: RulePlaybookParse, File: rel, Line: prob.Line, Message: prob.Message,
				Hint: "fix the line (the format: memctl help runs); memctl adds no steps to this playbook until then"})
		}
		if want := strings.TrimSuffix(name, ".md"); p.Signature != "" && p.Signature != want {
			r.add(Finding{Severity: Error, Rule: RulePlaybookParse, File: rel, Line: 1,
				Message: fmt.Sprintf("the heading names signature %s but the file is named for %s", p.Signature, want),
				Hint:    "a playbook's file is named <signature>.md: rename the file or fix the heading"})
		}
	}
	return nil
}

// playbookAt names what line n of a playbook belongs to.
func playbookAt(p *ledger.Playbook, n int) string {
	for i, s := range p.Steps {
		if s.Line <= n && n <= s.EndLine {
			return fmt.Sprintf("step %d", i+1)
		}
	}
	return "the playbook"
}
