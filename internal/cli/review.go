package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

type reviewOptions struct {
	list, approve, reject, withdraw, commit, overBudget, accessible, json bool
	status, text, feedback, reviewer                                      string
}

func newReviewCmd(env *Env) *cobra.Command {
	var opts reviewOptions
	cmd := &cobra.Command{
		Use:               "review [id]",
		ValidArgsFunction: completeProposals(env),
		Short:             "Approve, edit or reject proposed facts: interactively, or with flags",
		Long: `Review walks the pending proposals, oldest first, when stdin and stdout are a
terminal: each screen shows the category, the action, the fact as it would
read (before and after for an update or removal), the reason, the evidence,
similar facts and the effect on the line budget, as stored (no Markdown);
you approve, edit then approve, reject with feedback, skip or quit (Esc or
q). A removal has no edit. An empty or unchanged edit, or empty feedback,
goes back to the choice and says why; an edit or feedback the write gate
refuses (a secret, a control character) is shown with the reason and
asked again. Ctrl-C stops at once (exit 130); decisions taken before stay.
The workspace lock is held only while a decision is applied; a proposal
someone else decided meanwhile is reported and skipped (exit 5).
--accessible (or MEMCTL_ACCESSIBLE=1) asks line by line on plain stdin
instead, for screen readers and scripts: a number per choice, q quits, the
end of input stops (exit 130).

Playbook proposals (memctl playbook propose) show the error and the fix
steps as they would be numbered; they have no edit, and approving writes
.ledger/playbooks/<signature>.md or adds the new steps to it.

The reviewer is --reviewer, else MEMCTL_ACTOR, else git's user.name.

Every choice has a flag, for scripts and CI:
  memctl review --list [--status pending|approved|rejected|withdrawn|all] [--json]
                                          (default: pending and rejected)
  memctl review <id>                      show one proposal
  memctl review <id> --approve [--text "edited fact"] [--commit] [--over-budget]
  memctl review <id> --reject --feedback "what to do instead"
  memctl review <id> --withdraw`,
		Example: `  memctl review
  memctl review --list --json
  memctl review p-3kq9x2a --approve --commit
  memctl review p-3kq9x2a --reject --feedback "Too specific to one run; put it in the task notes"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return runReview(cmd.Context(), env, id, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.list, "list", false, "list proposals")
	f.StringVar(&opts.status, "status", "", "with --list: pending, approved, rejected, withdrawn or all (default: pending and rejected)")
	f.BoolVar(&opts.approve, "approve", false, "approve the proposal and apply it to the facts file")
	f.StringVar(&opts.text, "text", "", "with --approve: the fact as edited by the reviewer")
	f.BoolVar(&opts.reject, "reject", false, "reject the proposal (needs --feedback)")
	f.StringVar(&opts.feedback, "feedback", "", "with --reject: what the agent should know")
	f.BoolVar(&opts.withdraw, "withdraw", false, "withdraw the proposal")
	f.StringVar(&opts.reviewer, "reviewer", "", "who reviews (default: MEMCTL_ACTOR, else your git identity)")
	f.BoolVar(&opts.commit, "commit", false, "with --approve: commit the facts file and the proposal (git)")
	f.BoolVar(&opts.overBudget, "over-budget", false, "with --approve: apply even past the line budget")
	f.BoolVar(&opts.accessible, "accessible", false, "ask line by line on plain stdin (also MEMCTL_ACCESSIBLE=1)")
	f.BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func newProposalsCmd(env *Env) *cobra.Command {
	var opts reviewOptions
	cmd := &cobra.Command{
		Use:     "proposals",
		Short:   "List proposals with their status and feedback (the same as review --list)",
		Example: "  memctl proposals --json\n  memctl proposals --status rejected",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.list = true
			return runReview(cmd.Context(), env, "", opts)
		},
	}
	cmd.Flags().StringVar(&opts.status, "status", "", "pending, approved, rejected, withdrawn or all (default: pending and rejected)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

// proposalsJSON is the --json shape of review --list and proposals.
type proposalsJSON struct {
	SchemaVersion int                  `json:"schema_version"`
	Proposals     []*proposal.Proposal `json:"proposals"`
}

func runReview(ctx context.Context, env *Env, id string, opts reviewOptions) error {
	acts := 0
	for _, b := range []bool{opts.approve, opts.reject, opts.withdraw} {
		if b {
			acts++
		}
	}
	switch {
	case acts > 1:
		return usagef(errors.New("choose one of --approve, --reject and --withdraw"))
	case acts == 1 && id == "":
		return usagef(errors.New("name the proposal: memctl review <id> --approve|--reject|--withdraw"))
	case opts.reject && strings.TrimSpace(opts.feedback) == "":
		return usagef(errors.New(`--reject needs --feedback "…" for the agent`))
	case opts.status != "" && !opts.list:
		return usagef(errors.New("--status goes with --list"))
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	book := env.book(ws)
	switch {
	case opts.list:
		return listProposals(env, book, opts)
	case id != "" && acts == 0:
		p, err := book.Proposals.Get(id)
		if err != nil {
			return proposalError(err)
		}
		if opts.json {
			_, err := env.Out.Write(proposal.Encode(p))
			return err
		}
		_, err = fmt.Fprint(env.Out, reviewScreen(book, p))
		return err
	case id != "":
		if err := env.Lock(ctx, ws); err != nil {
			return err
		}
		p, err := book.Proposals.Get(id)
		if err != nil {
			return proposalError(err)
		}
		return decide(env, ws, book, p, opts)
	}
	accessible := opts.accessible || env.Getenv("MEMCTL_ACCESSIBLE") == "1"
	if !accessible && (!env.StdinTTY || !env.StdoutTTY) {
		return usagef(errors.New("not running interactively: use --list, <id> --approve, <id> --reject --feedback \"…\" or <id> --withdraw (or --accessible to answer on stdin)"))
	}
	return interactiveReview(ctx, env, ws, book, opts, accessible)
}

func listProposals(env *Env, book *proposal.Book, opts reviewOptions) error {
	// By default: what needs attention, pending proposals for reviewers
	// and rejected ones, whose feedback is for the agents.
	statuses := []string{proposal.StatusPending, proposal.StatusRejected}
	status := opts.status
	switch status {
	case "":
		status = "pending or rejected"
	case proposal.StatusPending, proposal.StatusApproved, proposal.StatusRejected, proposal.StatusWithdrawn, "all":
		statuses = []string{status}
	default:
		return usagef(fmt.Errorf("--status %q: use pending, approved, rejected, withdrawn or all", status))
	}
	all, problems, err := book.Proposals.List()
	if err != nil {
		return err
	}
	for _, p := range problems {
		env.warnf("%s:%d: %s (skipped; memctl check reports it)", p.File, p.Line, p.Message)
	}
	ps := proposal.Filter(all, statuses...)
	if opts.json {
		return writeJSON(env.Out, proposalsJSON{SchemaVersion: schemaVersion, Proposals: nonNil(ps)})
	}
	if len(ps) == 0 {
		env.notef("no proposals with status %s", status)
		return nil
	}
	var facts *ledger.Ledger // for the text a removal takes away, read once
	t := newTable(env, "ID", "STATUS", "CATEGORY", "ACTION", "CREATED", "FACT")
	for _, p := range ps {
		content := p.Content
		if p.Action == proposal.ActionRemove && content == "" {
			if facts == nil {
				if facts, err = ledger.Load(book.FactsDir, book.FactsRel); err != nil {
					return err
				}
			}
			content = "(fact " + p.FactID + " is gone)"
			if f, ok := facts.Fact(p.FactID); ok {
				content = f.Text
			}
		}
		category := p.Category
		if p.IsPlaybook() {
			category, content = proposal.KindPlaybook, proposalSummary(p)
		}
		text := visibleLine(oneLine(content))
		if p.Status == proposal.StatusRejected && p.Feedback != "" {
			text += "  [feedback: " + visibleLine(oneLine(p.Feedback)) + "]"
		}
		t.row(p.ID, p.Status, category, p.Action, p.CreatedAt.UTC().Format(time.RFC3339), text)
	}
	return t.flush()
}

// decide applies a flag-given decision to one proposal.
func decide(env *Env, ws *config.Workspace, book *proposal.Book, p *proposal.Proposal, opts reviewOptions) error {
	reviewer, email := env.reviewer(ws, opts.reviewer)
	now := env.Now()
	var err error
	switch {
	case opts.approve:
		err = book.Approve(p, opts.text, reviewer, opts.overBudget, now)
	case opts.reject:
		err = book.Reject(p, opts.feedback, reviewer, now)
	default:
		err = book.Withdraw(p, reviewer, now)
	}
	if err != nil {
		return proposalError(err)
	}
	env.reportRedactions(book.Redactions)
	book.Redactions = nil
	if opts.approve && opts.commit {
		if err := commitApproval(ws, book, p, reviewer, email, now); err != nil {
			return err
		}
	}
	if opts.json {
		_, err := env.Out.Write(proposal.Encode(p))
		return err
	}
	// id and status; an approval adds the id of the fact it applied (the
	// only decision that has one).
	switch {
	case opts.approve && p.IsPlaybook():
		_, err = fmt.Fprintf(env.Out, "%s\t%s\t%s\n", visibleLine(p.ID), p.Status, book.PlaybookPath(p.Signature))
	case opts.approve:
		_, err = fmt.Fprintf(env.Out, "%s\t%s\t%s\n", visibleLine(p.ID), p.Status, visibleLine(p.AppliedFactID))
	default:
		_, err = fmt.Fprintf(env.Out, "%s\t%s\n", visibleLine(p.ID), p.Status)
	}
	return err
}

// commitApproval commits exactly the facts or playbook file and the
// proposal file.
func commitApproval(ws *config.Workspace, book *proposal.Book, p *proposal.Proposal, reviewer, email string, now time.Time) error {
	first := strings.SplitN(p.Content, "\n", 2)[0]
	if p.Action == proposal.ActionRemove {
		first = "remove " + p.FactID
	}
	msg := fmt.Sprintf("facts(%s): %s\n\nProposal: %s\nReason: %s\n", p.Category, clip(first, 72), p.ID, p.Reason)
	files := []string{path.Join(config.FactsDir, p.Category+".md"), p.File}
	if p.IsPlaybook() {
		msg = fmt.Sprintf("playbook(%s): %s\n\nProposal: %s\n", p.Signature, clip(cmp.Or(firstLine(p.ErrorText, p.Excerpt), "fix steps"), 72), p.ID)
		files = []string{book.PlaybookPath(p.Signature), p.File}
	}
	if _, err := gitx.CommitFiles(ws.Root, files, msg, gitx.Signature{Name: reviewer, Email: email, When: now}); err != nil {
		return withHint(fmt.Errorf("commit: %w", err), "the approval is applied; commit the two files yourself")
	}
	return nil
}

// reviewScreen is what a reviewer sees for one proposal: its text exactly
// as stored, with only what could drive the terminal escaped (visible).
func reviewScreen(book *proposal.Book, p *proposal.Proposal) string {
	return visible(reviewText(book, p))
}

func reviewText(book *proposal.Book, p *proposal.Proposal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Proposal %s (%s) by %s, %s\n", visibleLine(p.ID), visibleLine(p.Status), visibleLine(dash(p.Author)), p.CreatedAt.UTC().Format(time.RFC3339))
	if p.IsPlaybook() {
		fmt.Fprintf(&b, "Kind: playbook   Signature: %s\n", visibleLine(p.Signature))
		playbookText(&b, book, p)
		reviewTail(&b, book, p)
		return b.String()
	}
	fmt.Fprintf(&b, "Category: %s   Action: %s\n", visibleLine(p.Category), visibleLine(p.Action))
	old := ""
	if p.FactID != "" {
		if l, err := ledger.Load(book.FactsDir, book.FactsRel); err == nil {
			if f, ok := l.Fact(p.FactID); ok {
				old = visible(f.Text)
			}
		}
	}
	fact, content := visibleLine(p.FactID), visible(p.Content)
	switch p.Action {
	case proposal.ActionAdd:
		fmt.Fprintf(&b, "\nThe fact would read:\n%s\n", indent(content))
	case proposal.ActionUpdate:
		fmt.Fprintf(&b, "\nFact %s now:\n%s\nwould read:\n%s\n", fact, indent("- "+old), indent("+ "+content))
	case proposal.ActionRemove:
		fmt.Fprintf(&b, "\nFact %s would be removed:\n%s\n", fact, indent("- "+old))
	}
	reviewTail(&b, book, p)
	return b.String()
}

// reviewTail is the part of a review screen after the proposed text: the
// reason, evidence, similar facts, budget, feedback and reviewer.
func reviewTail(b *strings.Builder, book *proposal.Book, p *proposal.Proposal) {
	fmt.Fprintf(b, "\nReason: %s\n", visible(dash(p.Reason)))
	for _, e := range p.Evidence {
		fmt.Fprintf(b, "Evidence: %s %s\n", visibleLine(e.Kind), visibleLine(e.Ref))
	}
	for _, s := range p.Similar {
		fmt.Fprintf(b, "Similar (%s, %s): %s %s\n", visibleLine(s.Relation), similarWhy(s), visibleLine(s.FactID), visibleLine(oneLine(s.Text)))
	}
	if p.Status == proposal.StatusPending && !p.IsPlaybook() {
		if eff, err := book.BudgetEffect(p); err == nil {
			fmt.Fprintf(b, "Budget: %s %d → %d of %d lines; all facts %d → %d of %d", eff.File, eff.FileBefore, eff.FileAfter, eff.FileMax,
				eff.TotalBefore, eff.TotalAfter, eff.TotalMax)
			if eff.Over() {
				b.WriteString("  OVER BUDGET (approve needs --over-budget)")
			}
			b.WriteString("\n")
		}
	}
	if p.Feedback != "" {
		fmt.Fprintf(b, "Feedback: %s\n", visible(p.Feedback))
	}
	if p.Reviewer != "" {
		fmt.Fprintf(b, "Reviewed by %s\n", visibleLine(p.Reviewer))
	}
}
