package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/secrets"
)

type prefOptions struct {
	personal, json bool
	reason         string
}

func newPrefCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pref",
		Short: "Add, list and remove preferences (team ones by proposal, personal ones directly)",
		Long: `Team preferences are the facts in .ledger/facts/preferences.md: pref add and
pref rm file proposals for review, as memctl propose does. Personal preferences
are yours alone, in $XDG_CONFIG_HOME/memctl/preferences.md (else
~/.config/memctl/preferences.md), never in a repository; --personal writes
that file directly and works outside a workspace too.`,
		Example: `  memctl pref add "Prefer table-driven tests." --json
  memctl pref add --personal "Answer in British English."
  memctl pref list --json
  memctl pref rm f-3k9x2a1 --personal`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newPrefAddCmd(env), newPrefListCmd(env), newPrefRmCmd(env))
	return cmd
}

func prefFlags(cmd *cobra.Command, opts *prefOptions) {
	f := cmd.Flags()
	f.BoolVar(&opts.personal, "personal", false, "your own preferences file, not the team's")
	f.StringVar(&opts.reason, "reason", "", "why, for the reviewer of a team proposal (default: a team preference)")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
}

func newPrefAddCmd(env *Env) *cobra.Command {
	var opts prefOptions
	cmd := &cobra.Command{
		Use:     "add <text>",
		Short:   "Propose a team preference, or add a personal one with --personal",
		Example: `  memctl pref add "Prefer table-driven tests." --json`,
		Args:    exactArgs(1, "give the preference as one argument, in quotes"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runPrefAdd(cmd.Context(), env, opts, args[0]) },
	}
	prefFlags(cmd, &opts)
	return cmd
}

func newPrefRmCmd(env *Env) *cobra.Command {
	var opts prefOptions
	cmd := &cobra.Command{
		Use:     "rm <id>",
		Short:   "Propose removing a team preference, or remove a personal one with --personal",
		Example: `  memctl pref rm f-3k9x2a1 --json`,
		Args:    exactArgs(1, "give the preference id (memctl pref list shows them)"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runPrefRm(cmd.Context(), env, opts, args[0]) },
	}
	prefFlags(cmd, &opts)
	return cmd
}

func newPrefListCmd(env *Env) *cobra.Command {
	var opts prefOptions
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List team and personal preferences with their ids",
		Example: `  memctl pref list --json`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runPrefList(env, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// exactArgs is cobra.ExactArgs with a usage error that says what to give.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef(fmt.Errorf("want %d argument, got %d: %s", n, len(args), what))
		}
		return nil
	}
}

func runPrefAdd(ctx context.Context, env *Env, opts prefOptions, text string) error {
	if strings.TrimSpace(text) == "" {
		return usagef(errors.New("the preference is empty: say it in quotes"))
	}
	if opts.personal {
		if opts.reason != "" {
			return usagef(errors.New("--reason is for a team proposal's reviewer: a personal preference is written without review"))
		}
		// The workspace's [secrets] table, when there is a workspace,
		// holds for personal preferences too.
		var policy secrets.Policy
		if ws, err := env.Workspace(); err == nil {
			policy = ws.Config.Secrets.Policy
		}
		return personalPref(ctx, env, opts, func(path string) (ledger.Fact, []secrets.Redaction, error) {
			return ledger.AddPersonalUnder(policy, path, text)
		})
	}
	return teamPref(ctx, env, opts, func(book *proposal.Book, author string) (*proposal.Proposal, error) {
		return book.ProposePreference(text, opts.reason, author, env.Now(), env.Rand)
	})
}

func runPrefRm(ctx context.Context, env *Env, opts prefOptions, id string) error {
	if opts.personal {
		if opts.reason != "" {
			return usagef(errors.New("--reason is for a team proposal's reviewer: a personal preference is removed without review"))
		}
		return personalPref(ctx, env, opts, func(path string) (ledger.Fact, []secrets.Redaction, error) {
			f, err := ledger.RemovePersonal(path, id)
			return f, nil, err
		})
	}
	return teamPref(ctx, env, opts, func(book *proposal.Book, author string) (*proposal.Proposal, error) {
		return book.ProposePreferenceRemoval(id, opts.reason, author, env.Now(), env.Rand)
	})
}

// personalPref runs write on the personal preferences file under its lock
// and prints the preference it added or removed.
func personalPref(ctx context.Context, env *Env, opts prefOptions, write func(path string) (ledger.Fact, []secrets.Redaction, error)) error {
	path := config.UserPreferencesPath(env.Getenv)
	if path == "" {
		return withHint(errors.New("no place for personal preferences: neither XDG_CONFIG_HOME nor HOME is set"), "set HOME (or XDG_CONFIG_HOME) and run this again")
	}
	if _, err := env.lockAt(ctx, nil, ledger.PersonalLockPath(path)); err != nil {
		return err
	}
	f, redacted, err := write(path)
	var dup *ledger.DuplicateError
	switch {
	case errors.Is(err, ledger.ErrFactNotFound):
		return withHint(&notFoundError{err}, `run "memctl pref list" to see preference ids; a team one is removed without --personal`)
	case errors.As(err, &dup):
		return withHint(err, "nothing to add: it is there already")
	case err != nil:
		return proposalError(err)
	}
	env.reportRedactions(redacted)
	pj := toPrefJSON(env, "personal", f)
	if opts.json {
		return writeJSON(env.Out, prefChangeJSON{SchemaVersion: schemaVersion, Scope: "personal", Preference: &pj, Proposal: json.RawMessage("null"),
			Redactions: toRedactionsJSON(redacted)})
	}
	_, err = fmt.Fprintf(env.Out, "%s\tpersonal\t%s\n", f.ID, visibleLine(oneLine(f.Text)))
	return err
}

// teamPref files the proposal propose makes, under the workspace lock, and
// prints it.
func teamPref(ctx context.Context, env *Env, opts prefOptions, propose func(*proposal.Book, string) (*proposal.Proposal, error)) error {
	ws, book, done, err := env.factsBook(ctx)
	if err != nil {
		return err
	}
	defer done()
	p, err := propose(book, env.actor(ws).Name)
	var notPref *proposal.NotPreferenceError
	switch {
	case errors.As(err, &notPref):
		return withHint(usagef(err), fmt.Sprintf(`pref rm removes preferences only: run "memctl propose --action remove --fact %s --reason …" for a fact of %s`, notPref.FactID, notPref.Category))
	case errors.Is(err, proposal.ErrFactNotFound):
		return withHint(&notFoundError{err}, `run "memctl pref list" to see preference ids; a personal one is removed with --personal`)
	case err != nil:
		return proposalError(err)
	}
	warnFiled(env, p)
	env.reportRedactions(book.Redactions)
	if opts.json {
		return writeJSON(env.Out, prefChangeJSON{SchemaVersion: schemaVersion, Scope: "team", Proposal: json.RawMessage(proposal.Encode(p)),
			Redactions: toRedactionsJSON(book.Redactions)})
	}
	text := p.Content
	if p.Action == proposal.ActionRemove {
		text = "remove " + p.FactID
	}
	_, err = fmt.Fprintf(env.Out, "%s\t%s\tteam\t%s\n", p.ID, p.Status, visibleLine(oneLine(text)))
	return err
}

func runPrefList(env *Env, opts prefOptions) error {
	list := make([]prefJSON, 0)
	team, err := teamPrefs(env)
	if err != nil {
		return err
	}
	for _, f := range team {
		list = append(list, toPrefJSON(env, "team", f))
	}
	if path := config.UserPreferencesPath(env.Getenv); path != "" {
		file, err := ledger.LoadPersonal(path)
		if err != nil {
			return err
		}
		warnProblems(env, file)
		for _, f := range file.Facts {
			list = append(list, toPrefJSON(env, "personal", f))
		}
	}
	if opts.json {
		return writeJSON(env.Out, prefListJSON{SchemaVersion: schemaVersion, Preferences: list})
	}
	if len(list) == 0 {
		env.notef("no preferences")
		return nil
	}
	t := newTable(env, "ID", "SCOPE", "PREFERENCE").clipToWidth()
	for _, p := range list {
		t.row(p.ID, p.Scope, oneLine(p.Text))
	}
	return t.flush()
}

// teamPrefs are the facts of the workspace's preferences file; none
// outside a workspace or with the facts layer off, so personal ones are
// still listed there.
func teamPrefs(env *Env) ([]ledger.Fact, error) {
	ws, err := env.Workspace()
	if errors.Is(err, config.ErrNoWorkspace) || errors.Is(err, gitx.ErrNotRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !ws.Config.Facts.Enabled {
		return nil, nil
	}
	l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
	if err != nil {
		return nil, err
	}
	f, err := l.File(ledger.PreferencesCategory)
	if err != nil {
		return nil, nil // no preferences file: no team preferences
	}
	warnProblems(env, f)
	return f.Facts, nil
}

// warnProblems says on stderr what of a preferences file is not read.
func warnProblems(env *Env, f *ledger.File) {
	for _, p := range f.Problems {
		env.warnf("%s:%d: %s (left out; memctl check lists every problem)", f.Path, p.Line, p.Message)
	}
}

// prefListJSON is pref list --json.
type prefListJSON struct {
	SchemaVersion int        `json:"schema_version"`
	Preferences   []prefJSON `json:"preferences"`
}

// prefChangeJSON is pref add --json and pref rm --json: the personal
// preference written or removed, or the team proposal filed.
type prefChangeJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Scope         string          `json:"scope"`
	Preference    *prefJSON       `json:"preference"`
	Proposal      json.RawMessage `json:"proposal"`
	// Redactions: what the write gate replaced ([secrets] mode =
	// "redact"); [] otherwise.
	Redactions []redactionJSON `json:"redactions"`
}

type prefJSON struct {
	ID    string `json:"id"`
	Scope string `json:"scope"`
	Text  string `json:"text"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

func toPrefJSON(env *Env, scope string, f ledger.Fact) prefJSON {
	return prefJSON{ID: f.ID, Scope: scope, Text: f.Text, File: homeRel(env, f.File), Line: f.Line}
}

// homeRel writes a path under the home directory as ~/…, so that output
// names the personal file the same way on every machine.
func homeRel(env *Env, path string) string {
	if r := config.HomeRel(path, env.Getenv("HOME")); strings.HasPrefix(r, "~/") {
		return r
	}
	return path
}
