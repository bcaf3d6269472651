package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/audit"
	"github.com/memctl/memctl/internal/config"
)

type logOptions struct {
	limit         int
	since, author string
	json          bool
}

func newLogCmd(env *Env) *cobra.Command {
	var opts logOptions
	cmd := &cobra.Command{
		Use:   "log [path | id]",
		Short: "Show who changed which fact, task or proposal, in which commit",
		Long: `Log shows the history of memctl's files (.ledger/ and .beads/issues.jsonl)
from git, newest first: one line per commit and record changed, with the
commit, its author and date, and the change in memctl's terms (fact added in
pitfalls, task status open→closed, proposal approved).

A path (with a slash, or starting with a dot) limits the log to that file or
directory; an id (a task, fact, proposal, run or playbook) to that record,
with the fact a proposal was approved into. The history is HEAD's first
parents: a merge shows what it brought into the branch, under its own author.
Uncommitted changes are not shown (git status shows them).`,
		Example: `  memctl log -n 20
  memctl log tk-3f2 --json
  memctl log .ledger/facts/pitfalls.md --since 30d`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			return runLog(cmd.Context(), env, arg, opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.limit, "limit", "n", 0, "show at most `n` changes (0: all)")
	f.StringVar(&opts.since, "since", "", "only changes made since `when`: a time, a date or a duration ago (30d)")
	f.StringVar(&opts.author, "author", "", "only changes whose author name or email contains `text`")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runLog(ctx context.Context, env *Env, arg string, opts logOptions) error {
	if opts.limit < 0 {
		return usagef(fmt.Errorf("--limit %d: want 0 (all) or more", opts.limit))
	}
	q := audit.Query{Limit: opts.limit, Author: opts.author}
	if opts.since != "" {
		t, err := parseWhen("since", opts.since, env.Now(), true)
		if err != nil {
			return err
		}
		q.Since = t
	}
	cwd, err := env.Getwd()
	if err != nil {
		return fmt.Errorf("find working directory: %w", err)
	}
	repo, err := config.Find(cwd)
	if err != nil {
		return err
	}
	if arg != "" {
		var target *audit.TargetError
		q.Path, q.ID, err = audit.Target(repo.Root, cwd, arg)
		if errors.As(err, &target) {
			return withHint(usagef(err), `give a path at or under .ledger, .beads/issues.jsonl, or an id`)
		}
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(rel)))
		return err == nil
	}
	res, err := audit.Log(ctx, repo, q, exists)
	var nf *audit.NotFoundError
	if errors.As(err, &nf) {
		hint := `check the path; memctl log shows only committed changes`
		if nf.What == "id" {
			hint = `check the id ("memctl list --all", "memctl facts", "memctl review --list" show them); memctl log shows only committed changes`
		}
		return withHint(&notFoundError{err: err}, hint)
	}
	if err != nil {
		return err
	}
	if res.CutAt != "" {
		env.notef("history is cut at %s: this is a shallow clone, so what that commit and the ones before it changed is not known (git fetch --unshallow fetches the rest)", shortHash(res.CutAt))
	}
	if opts.json {
		return writeJSON(env.Out, toLogJSON(res))
	}
	if len(res.Entries) == 0 {
		env.notef("no changes")
		return nil
	}
	t := newTable(env, "COMMIT", "DATE", "AUTHOR", "CHANGE").clipToWidth()
	for _, e := range res.Entries {
		c := shortHash(e.Commit)
		if e.Merge {
			c += " (merge)"
		}
		t.row(c, formatTime(e.When), authorCell(e.AuthorName, e.AuthorEmail), e.Summary())
	}
	return t.flush()
}

// shortHash is a commit's abbreviated hash, as git log --oneline shows it.
func shortHash(hash string) string { return hash[:min(7, len(hash))] }

// authorCell is "Name <email>", or whichever of the two there is.
func authorCell(name, email string) string {
	switch {
	case email == "":
		return name
	case name == "":
		return "<" + email + ">"
	}
	return name + " <" + email + ">"
}

// logJSON is memctl log --json (docs/json.md).
type logJSON struct {
	SchemaVersion int            `json:"schema_version"`
	Entries       []logEntryJSON `json:"entries"`
	Shallow       bool           `json:"shallow"`
	CutAt         string         `json:"cut_at"`
}

type logEntryJSON struct {
	Commit  string   `json:"commit"`
	Short   string   `json:"short"`
	Merge   bool     `json:"merge"`
	Author  string   `json:"author"`
	Email   string   `json:"email"`
	Date    string   `json:"date"`
	File    string   `json:"file"`
	Kind    string   `json:"kind"`
	ID      string   `json:"id"`
	Action  string   `json:"action"`
	Details []string `json:"details"`
	Text    string   `json:"text"`
	Related []string `json:"related"`
	Summary string   `json:"summary"`
}

func toLogJSON(res *audit.Result) logJSON {
	out := logJSON{SchemaVersion: schemaVersion, Entries: make([]logEntryJSON, 0, len(res.Entries)), Shallow: res.CutAt != "", CutAt: res.CutAt}
	for _, e := range res.Entries {
		out.Entries = append(out.Entries, logEntryJSON{
			Commit: e.Commit, Short: shortHash(e.Commit), Merge: e.Merge,
			Author: e.AuthorName, Email: e.AuthorEmail, Date: formatTime(e.When),
			File: e.File, Kind: e.Kind, ID: e.ID, Action: e.Action,
			Details: nonNil(e.Details), Text: e.Text, Related: nonNil(e.Related), Summary: e.Summary(),
		})
	}
	return out
}
