package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/check"
	"github.com/memctl/memctl/internal/config"
)

// checkSecretsJSON is the --json shape of check --secrets.
type checkSecretsJSON struct {
	SchemaVersion int                      `json:"schema_version"`
	OK            bool                     `json:"ok"`
	History       bool                     `json:"history"`
	Findings      []checkSecretFindingJSON `json:"findings"`
	Summary       checkSecretsSummaryJSON  `json:"summary"`
}

type checkSecretFindingJSON struct {
	File        string           `json:"file"`
	Line        int              `json:"line"`
	Column      int              `json:"column"`
	Rule        string           `json:"rule"`
	Fingerprint string           `json:"fingerprint"`
	Commit      *checkCommitJSON `json:"commit"` // null: the working tree
	Remedy      string           `json:"remedy"`
}

type checkCommitJSON struct {
	Hash   string    `json:"hash"` // short, as git shows it
	Author string    `json:"author"`
	Email  string    `json:"email"`
	Date   time.Time `json:"date"`
}

type checkSecretsSummaryJSON struct {
	Findings int `json:"findings"`
	Files    int `json:"files"`
	Commits  int `json:"commits"`
	Versions int `json:"versions"`
}

// runCheckSecrets is memctl check --secrets: the scan (check.Secrets),
// rendered; exit 1 when it found anything.
func runCheckSecrets(ctx context.Context, env *Env, ws *config.Workspace, opts checkOptions, format string) error {
	personal := config.UserPreferencesPath(env.Getenv)
	r, err := check.Secrets(ctx, ws, check.SecretsOptions{History: opts.history, Personal: personal, PersonalName: personal})
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = writeCheckSecretsJSON(env.Out, r, opts.history)
	case "github":
		err = writeCheckSecretsGitHub(env.Out, r)
	default:
		err = writeCheckSecretsText(env.Out, r)
	}
	if err != nil {
		return err
	}
	if format != "json" {
		scanned := plural(r.Files, "file")
		if opts.history {
			scanned += fmt.Sprintf(" and %s from %s of history", plural(r.Versions, "version"), plural(r.Commits, "commit"))
		}
		if len(r.Findings) > 0 {
			env.notef("check --secrets failed: %s in %s", plural(len(r.Findings), "secret"), scanned)
		} else {
			env.notef("check --secrets passed: no secret in %s", scanned)
		}
	}
	if len(r.Findings) > 0 {
		return &silentError{code: exitFailure}
	}
	return nil
}

func writeCheckSecretsJSON(w io.Writer, r *check.SecretsReport, history bool) error {
	out := checkSecretsJSON{SchemaVersion: schemaVersion, OK: len(r.Findings) == 0, History: history,
		Findings: make([]checkSecretFindingJSON, 0, len(r.Findings)),
		Summary:  checkSecretsSummaryJSON{Findings: len(r.Findings), Files: r.Files, Commits: r.Commits, Versions: r.Versions}}
	for _, f := range r.Findings {
		j := checkSecretFindingJSON{File: f.File, Line: f.Line, Column: f.Column, Rule: f.Rule, Fingerprint: f.Fingerprint, Remedy: f.Remedy}
		if c := f.Commit; c != nil {
			j.Commit = &checkCommitJSON{Hash: c.Short(), Author: c.Author, Email: c.Email, Date: c.When.UTC()}
		}
		out.Findings = append(out.Findings, j)
	}
	return writeJSON(w, out)
}

// where is a finding's place, file:line:column, and its commit.
func secretWhere(f check.SecretFinding) string {
	s := fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	if c := f.Commit; c != nil {
		s += fmt.Sprintf(" in commit %s (%s, %s)", c.Short(), c.Author, c.When.UTC().Format(time.RFC3339))
	}
	return s
}

// writeCheckSecretsText prints one finding per line, file:line:column
// first (a link in editors and terminals), then its remedy.
func writeCheckSecretsText(w io.Writer, r *check.SecretsReport) error {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s: secret (%s), fingerprint %s\n    remedy: %s\n", visibleLine(secretWhere(f)), f.Rule, f.Fingerprint, f.Remedy)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCheckSecretsGitHub prints each finding as a GitHub error
// annotation; one in history names its commit in the message.
func writeCheckSecretsGitHub(w io.Writer, r *check.SecretsReport) error {
	var b strings.Builder
	for _, f := range r.Findings {
		msg := fmt.Sprintf("what looks like a secret (%s) at column %d, fingerprint %s", f.Rule, f.Column, f.Fingerprint)
		if c := f.Commit; c != nil {
			msg += fmt.Sprintf(", in commit %s (%s, %s)", c.Short(), c.Author, c.When.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(&b, "::error file=%s,line=%d,col=%d,title=%s::%s\n", ghProperty(f.File), f.Line, f.Column,
			ghProperty("memctl secret"), ghData(msg+"\n"+f.Remedy))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
