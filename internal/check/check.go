// Package check is the workspace audit behind `memctl check`, the gate CI
// runs: budgets, files that do not parse, duplicate ids, broken proposal and
// issue records, a stale AGENTS.md block, and memctl files that a merge left
// unmerged or with conflict markers. It reads and never writes.
package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/agents"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// Severity of a finding: errors fail the check, warnings do not.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Rule names, stable: CI annotations and scripts match on them.
const (
	RuleFactsBudget      = "facts-budget"
	RuleFactsFileBudget  = "facts-file-budget"
	RuleFactsBytes       = "facts-bytes"
	RuleFactsFileBytes   = "facts-file-bytes"
	RuleFactsFactLength  = "facts-fact-length"
	RuleFactsParse       = "facts-parse"
	RuleFactsDuplicate   = "facts-duplicate-id"
	RuleProposalJSON     = "proposal-json"
	RulePlaybookParse    = "playbook-parse"
	RuleRunJSON          = "run-json"
	RuleProposalStale    = "proposal-stale"
	RuleIssuesJSONL      = "issues-jsonl"
	RuleAgentsBlock      = "agents-block"
	RuleConfig           = "config"
	RuleUnmerged         = "unmerged"
	RuleConflictMarkers  = "conflict-markers"
	RuleMergeDriver      = "merge-driver"
	RuleSecret           = "secret"
	RuleControlCharacter = "control-character"
)

// Options are what a check needs besides the workspace.
type Options struct {
	Now time.Time
	// CI says the check runs in continuous integration, whose clones
	// merge nothing: the merge-driver warning is left out there.
	CI bool
	// TasksCache, when set, is the task graph's cache: when it was built
	// from issues.jsonl as the file is now, the file is known to be valid
	// (tasks.Vouched) and is not validated again.
	TasksCache string
	// CleanLines, when set, is where check remembers the lines of
	// issues.jsonl it found clean, so that the next check scans only the
	// lines that changed (cleanLines).
	CleanLines string
}

// Finding is one problem, with where it is and what to do about it.
type Finding struct {
	Severity Severity
	Rule     string
	File     string // relative to the workspace root
	Line     int    // 0 when the finding is about a whole file
	Message  string
	Hint     string
	// Secret is the scanner's finding, for the rule secret: what the
	// allow-list ([[secrets.allow]]) is matched against.
	Secret secrets.Finding
}

// Report is the result of a check.
type Report struct {
	Findings  []Finding
	Facts     int
	Lines     int
	MaxLines  int
	Bytes     int
	MaxBytes  int
	Proposals int
	Issues    int
}

// Errors counts the findings that fail the check.
func (r *Report) Errors() int { return r.count(Error) }

// Warnings counts the findings that do not fail the check.
func (r *Report) Warnings() int { return r.count(Warning) }

func (r *Report) count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Run checks the workspace. It returns an error only when it cannot read
// what it must check; everything wrong inside the files is a finding.
func Run(ctx context.Context, ws *config.Workspace, opts Options) (*Report, error) {
	now := opts.Now
	r := &Report{MaxLines: ws.Config.Facts.MaxLines, MaxBytes: ws.Config.Facts.MaxTotalBytes}
	for _, w := range ws.Warnings {
		msg := w.Message
		if w.Key != "" {
			msg = fmt.Sprintf("key %q: %s", w.Key, w.Message)
		}
		r.add(Finding{Severity: Warning, Rule: RuleConfig, File: w.File, Message: msg,
			Hint: "remove the key or fix its name (every key: memctl help config)"})
	}
	// The issues file is the largest input: check it on another goroutine
	// while the facts and proposals are read. Each side fills its own
	// report; the findings are merged and sorted below.
	issues := &Report{}
	issuesErr := make(chan error, 1)
	go func() {
		if !ws.Config.Tasks.Enabled {
			issuesErr <- nil
			return
		}
		issuesErr <- issues.checkIssues(ws, opts)
	}()
	err := r.checkLedger(ws, now)
	if ierr := <-issuesErr; err == nil {
		err = ierr
	}
	if err != nil {
		return nil, err
	}
	r.Issues = issues.Issues
	r.Findings = append(r.Findings, issues.Findings...)
	if err := r.checkRuns(ws); err != nil {
		return nil, err
	}
	if err := r.checkPlaybooks(ws); err != nil {
		return nil, err
	}
	if err := r.checkAgents(ws); err != nil {
		return nil, err
	}
	r.checkUnmerged(ws)
	if !opts.CI {
		r.checkDriver(ctx, ws)
	}
	if err := r.checkMarkers(ws); err != nil {
		return nil, err
	}
	// What [[secrets.allow]] lets through is not a finding.
	r.Findings = slices.DeleteFunc(r.Findings, func(f Finding) bool {
		return f.Rule == RuleSecret && ws.Config.Secrets.Policy.Allows(f.Secret)
	})
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return r, nil
}

func (r *Report) add(f Finding) { r.Findings = append(r.Findings, f) }

// checkLedger checks the facts and the proposals, when facts are enabled.
func (r *Report) checkLedger(ws *config.Workspace, now time.Time) error {
	if !ws.Config.Facts.Enabled {
		return nil
	}
	if err := r.checkFacts(ws); err != nil {
		return err
	}
	return r.checkProposals(ws, now)
}

func (r *Report) checkFacts(ws *config.Workspace) error {
	l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
	if err != nil {
		return err
	}
	cfg := ws.Config.Facts
	r.Lines = l.Lines()
	for _, f := range l.Files {
		r.Facts += len(f.Facts)
		found, err := checkFactsText(f)
		if err != nil {
			return err
		}
		r.Findings = append(r.Findings, found...)
		for _, p := range f.Problems {
			if p.Conflict {
				continue // checkMarkers reports every marker line
			}
			r.add(Finding{Severity: Error, Rule: RuleFactsParse, File: f.Path, Line: p.Line,
				Message: p.Message, Hint: "fix the line so the file reads as a Markdown list of facts"})
		}
		if f.Lines > cfg.MaxFileLines {
			r.add(Finding{Severity: Error, Rule: RuleFactsFileBudget, File: f.Path, Line: cfg.MaxFileLines + 1,
				Message: fmt.Sprintf("%d lines, over the per-file budget of %d", f.Lines, cfg.MaxFileLines),
				Hint:    "merge or remove facts in this file (memctl propose --action remove), split it by topic, or raise [facts] max_file_lines in " + config.ConfigFile})
		}
	}
	if r.Lines > cfg.MaxLines {
		r.add(Finding{Severity: Error, Rule: RuleFactsBudget, File: largestPath(l, func(f *ledger.File) int { return f.Lines }),
			Message: fmt.Sprintf("facts total %d lines, over the budget of %d (largest file named)", r.Lines, cfg.MaxLines),
			Hint:    "remove or merge facts (memctl facts --stats shows lines per file), or raise [facts] max_lines in " + config.ConfigFile})
	}
	r.checkSizes(l, cfg)
	for _, d := range l.Duplicates() {
		first := d.Facts[0]
		for _, dup := range d.Facts[1:] {
			hint := "delete the repeated fact"
			if dup.ExplicitID {
				hint = "give one of them another id, or delete the repeated fact"
			}
			r.add(Finding{Severity: Error, Rule: RuleFactsDuplicate, File: dup.File, Line: dup.Line,
				Message: fmt.Sprintf("fact id %q is also used at %s:%d", d.ID, first.File, first.Line), Hint: hint})
		}
	}
	return nil
}

// checkSizes applies the byte budgets, which catch what lines cannot (a
// megabyte on one line), and warns about facts longer than propose
// accepts: a person may write a longer one by hand, the byte budget is
// what fails.
func (r *Report) checkSizes(l *ledger.Ledger, cfg config.Facts) {
	r.Bytes = l.Bytes()
	for _, f := range l.Files {
		if f.Bytes > cfg.MaxFileBytes {
			r.add(Finding{Severity: Error, Rule: RuleFactsFileBytes, File: f.Path, Line: f.LineAtByte(cfg.MaxFileBytes),
				Message: fmt.Sprintf("%d bytes, over the per-file budget of %d", f.Bytes, cfg.MaxFileBytes),
				Hint:    "shorten or remove long facts in this file (memctl propose --action update or remove), split it by topic, or raise [facts] max_file_bytes in " + config.ConfigFile})
		}
		for _, fact := range f.Facts {
			if n := utf8.RuneCountInString(fact.Text); n > cfg.MaxFactChars {
				r.add(Finding{Severity: Warning, Rule: RuleFactsFactLength, File: f.Path, Line: fact.Line,
					Message: fmt.Sprintf("fact %s is %d characters, over [facts] max_fact_chars = %d", fact.ID, n, cfg.MaxFactChars),
					Hint:    "state the fact in a sentence or two and point to a document in the repository for the rest"})
			}
		}
	}
	if r.Bytes > cfg.MaxTotalBytes {
		r.add(Finding{Severity: Error, Rule: RuleFactsBytes, File: largestPath(l, func(f *ledger.File) int { return f.Bytes }),
			Message: fmt.Sprintf("facts total %d bytes, over the budget of %d (largest file named)", r.Bytes, cfg.MaxTotalBytes),
			Hint:    "shorten, remove or merge facts (memctl facts --stats shows the size of each file), or raise [facts] max_total_bytes in " + config.ConfigFile})
	}
}

// largestPath is the file to point at when a total budget is exceeded:
// the largest by size, or the facts directory when there are no files.
func largestPath(l *ledger.Ledger, size func(*ledger.File) int) string {
	if len(l.Files) == 0 {
		return config.FactsDir
	}
	best := l.Files[0]
	for _, f := range l.Files[1:] {
		if size(f) > size(best) {
			best = f
		}
	}
	return best.Path
}

func (r *Report) checkProposals(ws *config.Workspace, now time.Time) error {
	type scanned struct {
		rel   string
		found []secrets.Finding
	}
	var (
		found   = map[int]scanned{} // by the file's place in name order
		scanErr error
		mu      sync.Mutex
	)
	// The files are read once: their bytes go to the secret scanner as
	// they are validated.
	problems, n, err := proposal.ValidateDir(ws.Path(config.ProposalsDir), config.ProposalsDir, now, ws.Config.Review.StaleDays,
		func(i int, rel string, data []byte) {
			fs, err := secrets.ScanJSONLines(string(data))
			if err == nil && len(fs) == 0 {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			found[i] = scanned{rel, fs}
			scanErr = cmp.Or(scanErr, err)
		})
	if err = cmp.Or(err, scanErr); err != nil {
		return err
	}
	r.Proposals = n
	for _, i := range slices.Sorted(maps.Keys(found)) {
		r.Findings = append(r.Findings, secretFindings(found[i].rel, found[i].found)...)
	}
	for _, p := range problems {
		if p.Warning {
			r.add(Finding{Severity: Warning, Rule: RuleProposalStale, File: p.File, Line: p.Line, Message: p.Message,
				Hint: "review it: memctl review " + strings.TrimSuffix(path.Base(p.File), ".json")})
			continue
		}
		r.add(Finding{Severity: Error, Rule: RuleProposalJSON, File: p.File, Line: p.Line, Message: p.Message,
			Hint: "fix the file by hand (the schema: memctl help review), or delete it and propose again with memctl propose"})
	}
	return nil
}

func (r *Report) checkIssues(ws *config.Workspace, opts Options) error {
	path := ws.Path(config.IssuesFile)
	data, stamp, err := fsx.ReadMappedStamp(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", config.IssuesFile, err)
	}
	// The text rules scan the bytes the validation reads, beside it.
	var (
		text    []Finding
		clean   []uint64
		textErr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		var known *cleanLines
		if opts.CleanLines != "" {
			known = loadCleanLines(opts.CleanLines)
		}
		var newClean bool
		text, clean, newClean, textErr = checkIssuesText(config.IssuesFile, data, known, opts.CleanLines != "")
		if textErr == nil && opts.CleanLines != "" && (known == nil || known.keys != len(clean) || newClean) {
			saveCleanLines(opts.CleanLines, clean)
		}
	}()
	var problems []tasks.Problem
	n, vouched := 0, false
	if opts.TasksCache != "" {
		n, vouched = tasks.Vouched(data, stamp, opts.TasksCache)
	}
	if !vouched {
		problems, n = tasks.ValidateJSONL(data)
	}
	<-done
	if textErr != nil {
		return textErr
	}
	r.Findings = append(r.Findings, text...)
	r.Issues = n
	for _, p := range problems {
		msg := p.Message
		if p.Field != "" {
			msg = fmt.Sprintf("field %q: %s", p.Field, msg)
		}
		r.add(Finding{Severity: Error, Rule: RuleIssuesJSONL, File: config.IssuesFile, Line: p.Line, Message: msg,
			Hint: "fix the line: every task command refuses the file until then (each line is one issue as bd writes it: a unique id, a title, priority 0–4, closed_at exactly when closed)"})
	}
	return nil
}

func (r *Report) checkAgents(ws *config.Workspace) error {
	data, err := os.ReadFile(ws.Path(config.AgentsFile))
	if errors.Is(err, fs.ErrNotExist) {
		r.add(Finding{Severity: Error, Rule: RuleAgentsBlock, File: config.AgentsFile,
			Message: "AGENTS.md is missing, so agents are not told to use memctl", Hint: "run memctl init to write it"})
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", config.AgentsFile, err)
	}
	switch st, line := agents.Inspect(data); st {
	case agents.Missing:
		r.add(Finding{Severity: Error, Rule: RuleAgentsBlock, File: config.AgentsFile,
			Message: "AGENTS.md has no memctl block", Hint: "run memctl init to add it (text outside the block is kept)"})
	case agents.Outdated:
		r.add(Finding{Severity: Error, Rule: RuleAgentsBlock, File: config.AgentsFile, Line: line,
			Message: "the memctl block in AGENTS.md is outdated or was edited", Hint: "run memctl init to refresh it (text outside the block is kept)"})
	case agents.Broken:
		r.add(Finding{Severity: Error, Rule: RuleAgentsBlock, File: config.AgentsFile, Line: line,
			Message: "the memctl block in AGENTS.md is broken (a begin marker without an end, or two blocks)",
			Hint:    "keep one block between " + agents.BeginMarker + " and " + agents.EndMarker + ", then run memctl init"})
	}
	return nil
}
