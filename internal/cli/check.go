package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/check"
)

type checkOptions struct {
	format  string
	json    bool
	secrets bool // only secrets, in every memctl file (checksecrets.go)
	history bool // with secrets: every version in git history too
}

func newCheckCmd(env *Env) *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check budgets and files in CI: exit 0 clean, 1 findings, 2 usage or internal error",
		Long: `Check audits the workspace the way CI should: the facts line and byte
budgets (total and per file), facts longer than [facts] max_fact_chars (a
warning), facts files that do not parse, duplicate fact ids, proposal
files that are not JSON objects, lines of .beads/issues.jsonl that are not
records with an id and a title, a missing or outdated AGENTS.md block,
memctl files that a merge left unmerged in the git index (which can look
clean: see memctl resolve) or with conflict markers, what looks like a
secret in a facts file, issues.jsonl or a proposal file (an error that
names the rule and column, never the secret), control characters in
facts and issue text (a warning), and (a warning, not when CI is set) a
clone with no memctl merge driver registered.
Every finding names the file, the line where there is one, and what to do.

With GITHUB_ACTIONS=true the format defaults to github: workflow commands that
GitHub shows as annotations on the pull request.

--secrets scans for secrets only, in every file memctl writes (.ledger/**,
.beads/*.jsonl) and the personal preferences file; --history adds every
version of them in git history, each finding with the commit that
introduced it. Each finding names the file, line, column, rule and
fingerprint (for [[secrets.allow]]), and the remedy. See memctl help secrets.`,
		Example: `  memctl check
  memctl check --json
  memctl check --format github
  memctl check --secrets --history --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCheck(cmd.Context(), env, opts) },
	}
	cmd.Flags().StringVar(&opts.format, "format", "", "output `format`: text, json or github (default text, github when GITHUB_ACTIONS=true)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON, the same as --format json")
	cmd.Flags().BoolVar(&opts.secrets, "secrets", false, "scan every memctl file for secrets, and nothing else")
	cmd.Flags().BoolVar(&opts.history, "history", false, "with --secrets: scan every version in git history too")
	return cmd
}

// checkJSON is the --json shape of check.
type checkJSON struct {
	SchemaVersion int                `json:"schema_version"`
	OK            bool               `json:"ok"`
	Findings      []checkFindingJSON `json:"findings"`
	Summary       checkSummaryJSON   `json:"summary"`
}

type checkFindingJSON struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

type checkSummaryJSON struct {
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Facts     int `json:"facts"`
	Lines     int `json:"lines"`
	MaxLines  int `json:"max_lines"`
	Bytes     int `json:"bytes"`
	MaxBytes  int `json:"max_bytes"`
	Proposals int `json:"proposals"`
	Issues    int `json:"issues"`
}

func runCheck(ctx context.Context, env *Env, opts checkOptions) error {
	format := opts.format
	switch {
	case opts.json:
		format = "json"
	case format == "" && env.Getenv("GITHUB_ACTIONS") == "true":
		format = "github"
	case format == "":
		format = "text"
	}
	if format != "text" && format != "json" && format != "github" {
		return usagef(fmt.Errorf("--format %q: use text, json or github", format))
	}
	if opts.history && !opts.secrets {
		return usagef(errors.New("--history needs --secrets: memctl check --secrets --history"))
	}
	ws, err := env.workspace(true) // config warnings are findings here
	if err != nil {
		return err
	}
	if opts.secrets {
		return runCheckSecrets(ctx, env, ws, opts, format)
	}
	copts := check.Options{Now: env.Now(), CI: env.Getenv("CI") != ""}
	if !copts.CI {
		// A clone in CI is new and checked once: everything is read. On a
		// developer's machine check remembers what it found clean.
		copts.TasksCache, copts.CleanLines = tasksCachePath(ws), app.CheckCleanPath(ws)
	}
	r, err := check.Run(ctx, ws, copts)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = writeCheckJSON(env.Out, r)
	case "github":
		err = writeCheckGitHub(env.Out, r)
	default:
		err = writeCheckText(env.Out, r)
	}
	if err != nil {
		return err
	}
	if format != "json" {
		if n := r.Errors(); n > 0 {
			env.notef("check failed: %s, %s", plural(n, "error"), plural(r.Warnings(), "warning"))
		} else {
			env.notef("check passed: %s, %d/%d lines, %s, %s, %s", plural(r.Facts, "fact"), r.Lines, r.MaxLines,
				plural(r.Proposals, "proposal"), plural(r.Issues, "issue"), plural(r.Warnings(), "warning"))
		}
	}
	if r.Errors() > 0 {
		return &silentError{code: exitFailure}
	}
	return nil
}

func writeCheckJSON(w io.Writer, r *check.Report) error {
	out := checkJSON{SchemaVersion: schemaVersion, OK: r.Errors() == 0, Findings: make([]checkFindingJSON, 0, len(r.Findings)),
		Summary: checkSummaryJSON{Errors: r.Errors(), Warnings: r.Warnings(), Facts: r.Facts, Lines: r.Lines,
			MaxLines: r.MaxLines, Bytes: r.Bytes, MaxBytes: r.MaxBytes, Proposals: r.Proposals, Issues: r.Issues}}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, checkFindingJSON{Severity: string(f.Severity), Rule: f.Rule,
			File: f.File, Line: f.Line, Message: f.Message, Hint: f.Hint})
	}
	return writeJSON(w, out)
}

// writeCheckText prints one finding per line in the file:line: form
// editors and terminals turn into links, each followed by its hint.
func writeCheckText(w io.Writer, r *check.Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.File)
		if f.Line > 0 {
			b.WriteString(":" + strconv.Itoa(f.Line))
		}
		fmt.Fprintf(&b, ": %s: %s [%s]\n", f.Severity, f.Message, f.Rule)
		if f.Hint != "" {
			fmt.Fprintf(&b, "    hint: %s\n", f.Hint)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCheckGitHub prints GitHub Actions workflow commands, escaped as
// actions/toolkit does: data escapes % CR LF, properties also : and ,.
func writeCheckGitHub(w io.Writer, r *check.Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "::%s file=%s", f.Severity, ghProperty(f.File))
		if f.Line > 0 {
			fmt.Fprintf(&b, ",line=%d", f.Line)
		}
		fmt.Fprintf(&b, ",title=%s::%s\n", ghProperty("memctl "+f.Rule), ghData(f.Message+"\n"+f.Hint))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var (
	ghDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func ghData(s string) string     { return ghDataEscaper.Replace(s) }
func ghProperty(s string) string { return ghPropertyEscaper.Replace(s) }

// plural writes n and noun, adding an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
