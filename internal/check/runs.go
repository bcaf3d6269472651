package check

import (
	"errors"
	"fmt"
	"os"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets"
)

// checkRuns checks the run records, when runs are enabled: a file that
// does not decode (its line and field), and secrets. Conflict markers are
// checkMarkers'. (Control characters are refused or replaced when memctl
// writes a record; a hand-edited file is not searched for them.)
func (r *Report) checkRuns(ws *config.Workspace) error {
	if !ws.Config.Runs.Enabled {
		return nil
	}
	files, err := runs.Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir}.Files()
	if err != nil {
		return err
	}
	for _, rel := range files {
		data, err := os.ReadFile(ws.Path(rel))
		if err != nil {
			return fmt.Errorf("read run record %s: %w", rel, err)
		}
		found, err := secrets.Scan(string(data))
		if err != nil {
			return err
		}
		r.Findings = append(r.Findings, secretFindings(rel, found)...)
		if len(gitx.ConflictMarkers(data)) > 0 {
			continue // checkMarkers reports every marker line
		}
		var fe *runs.FileError
		if _, err := runs.Decode(data, rel); errors.As(err, &fe) {
			r.add(Finding{Severity: Error, Rule: RuleRunJSON, File: rel, Line: fe.Line, Message: fe.Msg + fieldSuffix(fe.Field),
				Hint: "fix the file (the format: memctl help runs); memctl merges nothing into it until then"})
		} else if err != nil {
			return err
		}
	}
	return nil
}

func fieldSuffix(field string) string {
	if field == "" {
		return ""
	}
	return " (field " + field + ")"
}
