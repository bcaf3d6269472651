package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/prime"
)

type primeOptions struct {
	budget    int
	budgetSet bool // --budget-tokens was given (0 is then a mistake)
	files     []string
	json      bool
}

func newPrimeCmd(env *Env) *cobra.Command {
	var opts primeOptions
	cmd := &cobra.Command{
		Use:   "prime",
		Short: "Print the session-start context for an agent: facts, pins, tasks, feedback, warnings",
		Long: `Prime prints what an agent should know at the start of a session (and again
after a compaction), ranked by importance and cut to a token budget: the
verified facts, your pinned items, the last session on this branch,
preferences (team and personal), the tasks you have in progress, the ready
tasks, proposals rejected in the last 14 days with their feedback, how many
proposals wait for review, and past failures in the files you are changing.
Every line starts with the id it comes from. Past the budget the least
important lines are left out: the section cut keeps its first lines and a
hint line with the command that shows the rest, and one closing line names
the sections left out whole (memctl help agents explains the rule and the
token estimate).

A part that cannot be read is left out, named in a closing line of the
pack and in one warning on stderr, and prime still prints the rest and
exits 0; outside a workspace it prints
nothing and exits 0. It takes no lock and writes only derived caches under
the git directory.`,
		Example: `  memctl prime
  memctl prime --budget-tokens 1000 --files internal/parse.go
  memctl prime --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.budgetSet = cmd.Flags().Changed("budget-tokens")
			return runPrime(cmd.Context(), env, opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.budget, "budget-tokens", 0, "cap the pack at `n` tokens (default: [prime] budget_tokens, 2000)")
	f.StringSliceVar(&opts.files, "files", nil, "warn about these `paths`, comma-separated (default: git status's)")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runPrime(ctx context.Context, env *Env, opts primeOptions) error {
	if opts.budget < 0 || (opts.budget == 0 && opts.budgetSet) {
		return usagef(fmt.Errorf("--budget-tokens %d: use a positive number of tokens", opts.budget))
	}
	ws, err := env.Workspace()
	if err != nil {
		// prime runs from hooks at every session start: a repository
		// without memctl, or a config it cannot read, is not the agent's
		// failure. Say why on stderr and print an empty pack.
		env.warnf("nothing to prime: %v", err)
		if h := hintFor(err); h != "" {
			env.notef("hint: %s", h)
		}
		return writePrime(env.Out, &prime.Pack{Sections: []prime.Section{}, Problems: []prime.Problem{{Part: "workspace", Message: err.Error()}}}, opts.json)
	}
	po := env.primeOptions(ws)
	po.BudgetTokens = opts.budget
	if len(opts.files) > 0 {
		if po.Files, err = warnFiles(ctx, env, ws, opts.files); err != nil {
			return err
		}
	}
	p := prime.Build(ctx, ws, po)
	for _, pr := range p.Problems {
		env.warnf("%s: %s", pr.Part, pr.Detail())
	}
	if p.Disabled {
		env.notef("prime is disabled ([prime] enabled = false in %s): nothing printed", config.ConfigFile)
	}
	if p.Empty() {
		env.notef("the budget of %d tokens holds nothing; try --budget-tokens %d", p.BudgetTokens, prime.SuggestedBudget(p.FullTokens))
	}
	return writePrime(env.Out, p, opts.json)
}

// primeOptions are the options of a pack for the actor at the current
// time, as every front-end builds them (app.Session.PrimeOptions); the
// caller sets the budget, MaxChars and Files.
func (e *Env) primeOptions(ws *config.Workspace) prime.Options {
	return e.session(ws).PrimeOptions()
}

func writePrime(out io.Writer, p *prime.Pack, asJSON bool) error {
	if asJSON {
		return writeJSON(out, toPrimeJSON(p))
	}
	_, err := io.WriteString(out, visible(p.Text()))
	return err
}

// primeJSON is the --json shape of prime (memctl help json).
type primeJSON struct {
	SchemaVersion int                 `json:"schema_version"`
	Enabled       bool                `json:"enabled"`
	BudgetTokens  int                 `json:"budget_tokens"`
	Tokens        int                 `json:"tokens"`
	Omitted       int                 `json:"omitted"`
	LeftOut       string              `json:"left_out"`
	NotShown      string              `json:"not_shown"`
	Sections      []primeSectionJSON  `json:"sections"`
	Problems      []statusProblemJSON `json:"problems"`
	Text          string              `json:"text"`
}

type primeSectionJSON struct {
	Name    string          `json:"name"`
	Title   string          `json:"title"`
	Tokens  int             `json:"tokens"`
	Omitted int             `json:"omitted"`
	Hint    string          `json:"hint"`
	Dropped bool            `json:"dropped"`
	Lines   []primeLineJSON `json:"lines"`
}

type primeLineJSON struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

func toPrimeJSON(p *prime.Pack) primeJSON {
	out := primeJSON{SchemaVersion: schemaVersion, Enabled: !p.Disabled, BudgetTokens: p.BudgetTokens, Tokens: p.Tokens,
		LeftOut: p.LeftOut, NotShown: p.NotShown,
		Sections: make([]primeSectionJSON, 0, len(p.Sections)), Problems: make([]statusProblemJSON, 0, len(p.Problems)), Text: p.Text()}
	for _, s := range p.Sections {
		js := primeSectionJSON{Name: s.Name, Title: s.Title, Tokens: s.Tokens, Omitted: s.Omitted, Hint: s.Hint, Dropped: s.Dropped,
			Lines: make([]primeLineJSON, 0, len(s.Lines))}
		for _, l := range s.Lines {
			js.Lines = append(js.Lines, primeLineJSON{ID: l.ID, Text: l.Text, Tokens: l.Tokens})
		}
		out.Omitted += s.Omitted
		out.Sections = append(out.Sections, js)
	}
	for _, pr := range p.Problems {
		out.Problems = append(out.Problems, statusProblemJSON{Part: pr.Part, Where: pr.Where, Message: pr.Message})
	}
	return out
}
