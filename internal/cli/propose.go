package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/proposal"
)

type proposeOptions struct {
	category, text, reason, action, fact, author string
	evidence                                     []string
	json, newCategory                            bool
}

func newProposeCmd(env *Env) *cobra.Command {
	var opts proposeOptions
	cmd := &cobra.Command{
		Use:   "propose",
		Short: "Propose a fact for human review (agents never edit .ledger/facts)",
		Long: `Propose files a proposal in .ledger/proposals/<id>.json for a person to approve,
edit or reject with memctl review. It is refused (exit 1) when it repeats a fact
or a pending proposal exactly (a second pending removal of the same fact
included), when the text contains what looks like a secret, or when the
category is read-only. A --fact that names no fact exits 3; a --category that
is not the fact's own exits 2. Facts that look
similar or contradictory are recorded with it and shown at review. Under an
append or readwrite policy ([facts.policy]) it is applied at once.`,
		Example: `  memctl propose --category pitfalls --reason "cost us a day in run 41" --text "The integration tests share port 7070; run them with -p 1."
  echo "Use the blue pool for deploys." | memctl propose --category preferences --reason "team decision" --json
  memctl propose --action update --fact f-3k9x2a1 --text "…" --reason "the limit changed" --evidence task:kv-8f2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPropose(cmd.Context(), env, cmd, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.category, "category", "", "the facts file, e.g. pitfalls (for add)")
	f.StringVar(&opts.category, "file", "", "the same as --category (the key mneme, another agent-memory tool, uses)")
	_ = cmd.RegisterFlagCompletionFunc("category", completeCategories(env))
	_ = cmd.RegisterFlagCompletionFunc("file", completeCategories(env))
	f.StringVar(&opts.text, "text", "", "the fact (default: read from stdin)")
	f.StringVar(&opts.reason, "reason", "", "why it matters (required)")
	f.StringVar(&opts.action, "action", proposal.ActionAdd, "add, update or remove")
	f.StringVar(&opts.fact, "fact", "", "the fact `id` to update or remove")
	f.StringArrayVar(&opts.evidence, "evidence", nil, "evidence `kind:ref` (run, task, commit, file, url); repeatable")
	f.StringVar(&opts.author, "author", "", "who proposes (default: the actor)")
	f.BoolVar(&opts.newCategory, "new-category", false, "allow a category that has no facts file yet (lower-case snake_case); approving creates the file")
	f.BoolVar(&opts.json, "json", false, "print the stored proposal as JSON")
	return cmd
}

func runPropose(ctx context.Context, env *Env, cmd *cobra.Command, opts proposeOptions) error {
	if opts.action != proposal.ActionAdd && opts.fact == "" {
		return usagef(fmt.Errorf("--action %s needs --fact <id>", opts.action))
	}
	if opts.action == proposal.ActionAdd && opts.category == "" {
		return usagef(errors.New("--category is required (the facts file, e.g. pitfalls)"))
	}
	if strings.TrimSpace(opts.reason) == "" {
		return usagef(errors.New("--reason is required: say why the fact matters"))
	}
	ev, err := parseEvidenceFlags(opts.evidence)
	if err != nil {
		return err
	}
	if !cmd.Flags().Changed("text") && opts.action != proposal.ActionRemove {
		if env.StdinTTY {
			return usagef(errors.New("give the fact with --text or on stdin"))
		}
		b, err := io.ReadAll(env.In)
		if err != nil {
			return fmt.Errorf("read the fact from stdin: %w", err)
		}
		opts.text = string(b)
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	p, err := env.session(ws).Propose(ctx, proposal.Input{Action: opts.action, Category: opts.category, FactID: opts.fact,
		Content: opts.text, Reason: opts.reason, Author: opts.author, Evidence: ev, NewCategory: opts.newCategory})
	if err != nil {
		return err
	}
	warnFiled(env, p)
	if opts.json {
		_, err := env.Out.Write(proposal.Encode(p))
		return err
	}
	_, err = fmt.Fprintf(env.Out, "%s\t%s\t%s\t%s\n", p.ID, p.Status, p.Category, visibleLine(oneLine(p.Content)))
	return err
}

// proposalError maps proposal errors to exit codes and hints
// (app.ProposalError).
func proposalError(err error) error { return app.ProposalError(err) }

// factsBook opens the workspace for a change to the facts: the layer on,
// the workspace lock taken, and the book with the similarity matcher
// (app.Session.FactsBook). Call done once the proposal is filed.
func (e *Env) factsBook(ctx context.Context) (*config.Workspace, *proposal.Book, func(), error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, nil, nil, err
	}
	book, done, err := e.session(ws).FactsBook(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return ws, book, done, nil
}

// warnFiled says what the reviewer of a filed proposal will be told: the
// facts it resembles, and that it goes over the line budget.
func warnFiled(env *Env, p *proposal.Proposal) {
	hinted := false
	for _, s := range p.Similar {
		env.warnf("%s: %s (%s) %s: %s", p.ID, s.Relation, similarWhy(s), s.FactID, visibleLine(oneLine(s.Text)))
		if s.Relation == "possible-contradiction" && p.Action == proposal.ActionAdd && !hinted {
			// Approved, an addition keeps both facts: the old one
			// goes only by an update.
			hinted = true
			env.hintf("if %s replaces %s, withdraw it (memctl review %s --withdraw) and propose --action update --fact %s instead; approved as it is, both facts stay", p.ID, s.FactID, p.ID, s.FactID)
		}
	}
	if p.OverBudget {
		env.warnf("%s would push the facts over their line budget; a reviewer must approve it with --over-budget", p.ID)
	}
}

// similarWhy is a similar fact's score, and what conflicts in a possible
// contradiction: "0.91; the proposal says 1.24, the fact 1.22".
func similarWhy(s proposal.Similar) string {
	if s.Why == "" {
		return fmt.Sprintf("%.2f", s.Score)
	}
	return fmt.Sprintf("%.2f; %s", s.Score, visibleLine(s.Why))
}

// parseEvidenceFlags parses --evidence kind:ref values; a bad one is a
// usage error.
func parseEvidenceFlags(values []string) ([]proposal.Evidence, error) {
	var ev []proposal.Evidence
	for _, v := range values {
		x, err := proposal.ParseEvidence(v)
		if err != nil {
			return nil, usagef(fmt.Errorf("--%w", err))
		}
		ev = append(ev, x)
	}
	return ev, nil
}
