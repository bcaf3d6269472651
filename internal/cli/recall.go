package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
)

type recallOptions struct {
	k        int
	mode     string
	kinds    []string
	category string
	status   string
	label    string
	since    string
	until    string
	scope    string
	errText  string
	explain  bool
	json     bool
}

func newRecallCmd(env *Env) *cobra.Command {
	var opts recallOptions
	cmd := &cobra.Command{
		Use:   "recall QUERY | --error TEXT",
		Short: "Search facts, tasks, proposals, runs and playbooks by meaning and by words",
		Long: `Recall ranks what memctl knows — facts, tasks, proposals, run records,
playbooks and your personal preferences — against a question. The
candidates of BM25 over words and of dense vectors from an offline
embedder are scored by three signals, each scaled to [0, 1]: BM25, the
dense cosine, and how well each word of the question is matched by a word
of the text or a word of like meaning; their weighted sum
([recall.weights]) is multiplied by the priors (approved text first at
equal relevance, runs fading with age). --explain shows each result's
numbers. Every result says where it comes from (file, line). The index
under the git directory is brought up to date first: only files that
changed are read again.

Filters apply before the cut at -k: --kind, --category, --status, --label,
--since and --until (a date, a time or a duration ago; --until takes in
the whole of a date's day), and --scope: team (what the repository shares),
personal (your preferences, kind personal, from
$XDG_CONFIG_HOME/memctl/preferences.md), a scope named in [recall.scopes],
or a path prefix.

With --error, the question is an error text (- reads it from stdin): the
playbook of its signature and the runs that met the same error come first,
newest first, marked as signature matches; similar errors follow.`,
		Example: `  memctl recall "which database do we use"
  memctl recall "flaky integration tests" --kind task --status open --json
  memctl recall "what did we do on the parser" --kind run --since 7d
  memctl recall "which database do we use" --explain
  memctl recall "release" --since 2026-10-01 --until 2026-10-31 --scope team
  go test ./... 2>&1 | memctl recall --error - --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecall(cmd.Context(), env, args, opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.k, "k", "k", 10, "how many results")
	f.StringVar(&opts.mode, "mode", recall.ModeHybrid, "hybrid, bm25 or dense")
	f.StringSliceVar(&opts.kinds, "kind", nil, "only these kinds: fact, task, proposal, run, playbook, personal (repeatable)")
	f.StringVar(&opts.category, "category", "", "only this facts or proposal category")
	f.StringVar(&opts.status, "status", "", "only this status (task or proposal)")
	f.StringVar(&opts.label, "label", "", "only tasks with this label")
	f.StringVar(&opts.since, "since", "", "only documents created since a date (2026-01-02), a time or a duration ago (72h, 14d); facts, preferences and playbooks have no date and are left out")
	f.StringVar(&opts.until, "until", "", "only documents created until a date (the whole day), a time or a duration ago; facts, preferences and playbooks have no date and are left out")
	f.StringVar(&opts.scope, "scope", "", "team, personal, a scope named in [recall.scopes], or a path prefix (./team for a directory)")
	f.StringVar(&opts.errText, "error", "", "search by an error `text` (- reads stdin): its signature's playbook and runs first")
	f.BoolVar(&opts.explain, "explain", false, "show how each result's score came about: each signal's score, scaled score, rank and weight, and the priors")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// recallJSON is the --json shape of recall (app's: the MCP recall tool
// prints it too).
type recallJSON = app.RecallJSON

func runRecall(ctx context.Context, env *Env, args []string, opts recallOptions) error {
	start := env.Now()
	query, err := recallQuery(env, args, &opts)
	if err != nil {
		return err
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	so, err := recallSearchOptions(env, ws, opts)
	if err != nil {
		return err
	}
	if !ws.Config.Index.Enabled {
		env.notef("%s", app.IndexOffNotice)
		if opts.json {
			return writeJSON(env.Out, recallJSON{SchemaVersion: app.RecallSchemaVersion, Query: query, Mode: opts.mode, Results: []recallResultJSON{}})
		}
		return nil
	}
	x, err := env.session(ws).UpdatedIndex(ctx)
	if err != nil {
		return err
	}
	ans, sig, err := recallSearch(ctx, env, ws, x, query, opts, so)
	if err != nil {
		return err
	}
	if ans.Warning != "" {
		env.warnf("%s", ans.Warning)
	}
	if ans.Results == nil {
		ans.Results = []recall.Result{}
	}
	if opts.json {
		took := float64(env.Now().Sub(start).Microseconds()) / 1000
		out := recallJSON{SchemaVersion: app.RecallSchemaVersion, Query: query, Mode: ans.Mode, Results: toRecallResultsJSON(ans.Results, opts.explain), TookMS: took}
		if sig != nil {
			out.Query, out.Signature = sig.Text, &recallSignatureJSON{Hash: sig.Hash, Normalized: sig.Text}
		}
		return writeJSON(env.Out, out)
	}
	if len(ans.Results) == 0 {
		if sig != nil {
			env.notef("nothing found for the error %s", sig.Hash)
			return nil
		}
		env.notef("nothing found for %q", query)
		scopeNote(env, ws, opts.scope)
		return nil
	}
	for i, r := range ans.Results {
		loc := r.Source.Path
		if r.Source.Line > 0 {
			loc += fmt.Sprintf(":%d", r.Source.Line)
		}
		// Escaped before highlight adds its own escapes.
		same := ""
		if r.Match == recall.MatchSignature {
			same = "  (same error)"
		}
		kind := r.Kind
		if r.Kind == index.KindProposal && r.Status != "" {
			kind += " " + r.Status // pending: not a fact yet
		}
		fmt.Fprintf(env.Out, "%d. [%s] %s  %s%s\n", i+1, visibleLine(kind), visibleLine(r.ID), highlight(env, visibleLine(r.Title), r.Matched), same)
		if r.Snippet != "" && r.Snippet != r.Title {
			fmt.Fprintf(env.Out, "   %s\n", highlight(env, visibleLine(r.Snippet), r.Matched))
		}
		fmt.Fprintf(env.Out, "   %s  score %.4f\n", visibleLine(loc), r.Score)
		if opts.explain {
			printExplain(env, r)
		}
	}
	return nil
}

// printExplain prints how a result's score came about, one line per
// signal and one for the priors.
func printExplain(env *Env, r recall.Result) {
	e := r.Scores.Explain
	for _, s := range []struct {
		name string
		sig  *recall.Signal
	}{{"bm25", e.BM25}, {"dense", e.Dense}, {"match", e.Match}} {
		if s.sig == nil {
			continue
		}
		rank := "not ranked"
		if s.sig.Rank > 0 {
			rank = fmt.Sprintf("rank %d", s.sig.Rank)
		}
		fmt.Fprintf(env.Out, "     %-5s %9.4f  scaled %.4f × weight %.2f = %.4f  (%s)\n", s.name, s.sig.Raw, s.sig.Norm, s.sig.Weight, s.sig.Norm*s.sig.Weight, rank)
	}
	fmt.Fprintf(env.Out, "     relevance %.4f × approved %.2f × age %.4f = %.4f\n", e.Relevance, e.Approved, e.Age, r.Score)
}

// scopeNote says, when a --scope found nothing and is no scope name, that
// it was taken as a path prefix, and which names there are: a mistyped
// name finds nothing, silently, otherwise.
func scopeNote(env *Env, ws *config.Workspace, scope string) {
	if scope == "" || scope == config.ScopeTeam || scope == config.ScopePersonal {
		return
	}
	if _, named := ws.Config.Recall.Scopes[scope]; named {
		return
	}
	names := []string{config.ScopeTeam, config.ScopePersonal}
	for n := range ws.Config.Recall.Scopes {
		names = append(names, n)
	}
	slices.Sort(names[2:])
	env.notef("--scope %s was taken as a path prefix: no scope has that name (there are %s)", visibleLine(scope), strings.Join(names, ", "))
}

// recallQuery is the question: the argument, or with --error the error
// text (stdin's for -), which is what the index is searched for.
func recallQuery(env *Env, args []string, opts *recallOptions) (string, error) {
	switch {
	case opts.errText != "" && len(args) > 0:
		return "", usagef(withHint(errors.New("give a query or --error, not both"), `memctl recall "words" or memctl recall --error "the error text"`))
	case opts.errText != "":
		return errorText(env, opts.errText)
	case len(args) == 0:
		return "", usagef(withHint(errors.New("no query"), `ask in words, e.g. memctl recall "which database do we use", or give --error "the error text"`))
	}
	if err := recall.CheckQuery(args[0]); err != nil {
		return "", usagef(withHint(err, `ask in words, e.g. memctl recall "which database do we use"`))
	}
	return args[0], nil
}

// recallSearch searches the up-to-date index: by words and meaning, or
// with --error by the text's signature first (sig is then its signature).
func recallSearch(ctx context.Context, env *Env, ws *config.Workspace, x *index.Index, query string, opts recallOptions, so recall.Options) (recall.Answer, *signature.Signature, error) {
	if opts.errText == "" {
		ans, err := recall.Search(ctx, x, query, so)
		return ans, nil, err
	}
	var store *runs.Store
	if ws.Config.Runs.Enabled {
		rs, err := env.openRuns(ctx, false)
		if err != nil {
			return recall.Answer{}, nil, err
		}
		store = &rs.store
	}
	ea, err := recall.SearchError(ctx, x, store, query, so)
	if errors.Is(err, recall.ErrEmptyQuery) {
		return ea.Answer, nil, usagef(errOnlyNoise)
	}
	return ea.Answer, &ea.Signature, err
}

func recallSearchOptions(env *Env, ws *config.Workspace, opts recallOptions) (recall.Options, error) {
	so := env.session(ws).RecallOptions(opts.mode, opts.k, index.Filter{})
	if err := checkMode(opts.mode); err != nil {
		return so, err
	}
	if opts.k < 1 {
		return so, usagef(fmt.Errorf("-k %d: want at least 1", opts.k))
	}
	f, err := env.session(ws).RecallFilter(app.RecallFilter{Kinds: opts.kinds, Category: opts.category, Status: opts.status,
		Label: opts.label, Since: opts.since, Until: opts.until, Scope: opts.scope}, "--")
	if err != nil {
		return so, err
	}
	so.Filter = f
	return so, nil
}

// checkMode refuses a --mode recall does not have.
func checkMode(mode string) error {
	if recall.CheckMode(mode) == nil {
		return nil
	}
	return usagef(fmt.Errorf("--mode %q: want hybrid, bm25 or dense", mode))
}

// highlight marks the matched words: bold on a terminal, unchanged
// otherwise. Words are compared with s in place, ignoring case: offsets in
// strings.ToLower(s) are not offsets in s, since some letters (İ, the
// Kelvin sign) change length in lower case.
func highlight(env *Env, s string, words []string) string {
	if !env.StdoutTTY || len(words) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		hit := ""
		if i == 0 || !isWordByte(s[i-1]) {
			for _, w := range words {
				if w != "" && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
					hit = s[i : i+len(w)]
					break
				}
			}
		}
		if hit != "" {
			b.WriteString("\x1b[1m" + hit + "\x1b[0m")
			i += len(hit)
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
}
