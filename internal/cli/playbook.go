package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

func newPlaybookCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playbook",
		Short: "Fix playbooks for error signatures: propose steps for review",
		Long: `A playbook (.ledger/playbooks/<signature>.md) is the fix for one error
signature: what the error looks like, the steps that fixed it, and the runs
and commits that show it. Agents propose steps; a person approves them with
memctl review, which writes the file or adds the new steps to it.
Read them with memctl recall --kind playbook.`,
		Example: `  memctl playbook propose --signature e3b0c44298fc --steps "Run go generate ./..." --evidence run:r-41 --json`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newPlaybookProposeCmd(env))
	return cmd
}

type playbookProposeOptions struct {
	signature, errText, reason, author string
	steps, evidence                    []string
	json                               bool
}

func newPlaybookProposeCmd(env *Env) *cobra.Command {
	var opts playbookProposeOptions
	cmd := &cobra.Command{
		Use:   "propose",
		Short: "Propose fix steps for an error signature, for human review",
		Long: `Propose files a playbook proposal in .ledger/proposals/<id>.json; approving it
with memctl review writes .ledger/playbooks/<signature>.md, or adds the steps
and evidence it does not have yet. It is never applied on its own.

It is refused (exit 1) when the steps or the evidence are already in the
playbook, when a pending proposal has the same steps, when a step, the error
or the reason holds what looks like a secret or a control character, or when
the playbook file is one memctl cannot read (fix it first: memctl check).`,
		Example: `  memctl playbook propose --signature e3b0c44298fc --evidence run:r-41 \
      --steps "Run go generate ./... after changing the schema" \
      --steps "Commit the generated files" --json
  memctl playbook propose --signature e3b0c44298fc --error "$(tail -5 test.log)" --steps "…" --evidence commit:4f2a9c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlaybookPropose(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.signature, "signature", "", "the error signature: 12 lowercase hex digits (default: the signature of --error)")
	f.StringArrayVar(&opts.steps, "steps", nil, "a fix step; repeatable, one step each, in order")
	f.StringVar(&opts.errText, "error", "", "what the error looks like: an excerpt of at most 1000 characters; gives the signature when --signature is not set")
	f.StringArrayVar(&opts.evidence, "evidence", nil, "evidence `kind:ref` (run, task, commit, file, url); repeatable, at least one")
	f.StringVar(&opts.reason, "reason", "", "why the steps work (optional)")
	f.StringVar(&opts.author, "author", "", "who proposes (default: the actor)")
	f.BoolVar(&opts.json, "json", false, "print the stored proposal as JSON")
	return cmd
}

func runPlaybookPropose(ctx context.Context, env *Env, opts playbookProposeOptions) error {
	var errorText string
	if strings.TrimSpace(opts.errText) != "" {
		sig := signature.Of(opts.errText)
		switch {
		case opts.signature == "":
			opts.signature = sig.Hash
		case opts.signature != sig.Hash:
			env.warnf("the --error text's signature is %s, not %s: it is kept as what the error looks like, without its normalised text", sig.Hash, opts.signature)
		}
		if opts.signature == sig.Hash {
			errorText = sig.Text
		}
	}
	switch {
	case opts.signature == "":
		return usagef(errors.New("give the error with --error \"text\" or its signature with --signature (12 lowercase hex digits, as memctl signature prints it)"))
	case !ledger.ValidSignature(opts.signature):
		return usagef(fmt.Errorf("--signature %q: a signature is 12 lowercase hex digits (memctl signature prints it)", opts.signature))
	case len(opts.steps) == 0:
		return usagef(errors.New(`give the fix with --steps "…" (repeatable, one step each)`))
	case len(opts.evidence) == 0:
		return usagef(errors.New("give the run the fix worked in with --evidence run:<id> (or commit:<sha>)"))
	}
	ev, err := parseEvidenceFlags(opts.evidence)
	if err != nil {
		return err
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	if !ws.Config.Runs.Enabled {
		return layerOff("runs")
	}
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	author := opts.author
	if author == "" {
		author = env.actor(ws).Name
	}
	book := env.book(ws)
	p, err := book.ProposePlaybook(proposal.PlaybookInput{Signature: opts.signature, ErrorText: errorText, Excerpt: runs.Relative(ws.Root, opts.errText),
		Steps: opts.steps, Reason: opts.reason, Author: author, Evidence: ev}, env.Now(), env.Rand)
	if err != nil {
		return proposalError(err)
	}
	env.reportRedactions(book.Redactions)
	if opts.json {
		_, err := env.Out.Write(proposal.Encode(p))
		return err
	}
	_, err = fmt.Fprintf(env.Out, "%s\t%s\t%s\t%s\n", p.ID, p.Status, proposal.KindPlaybook, p.Signature)
	return err
}

// playbookText is what a reviewer reads of a playbook proposal: the error,
// the steps as they would be numbered, and whether they start the playbook
// or add to it.
func playbookText(b *strings.Builder, book *proposal.Book, p *proposal.Proposal) {
	if p.ErrorText != "" {
		fmt.Fprintf(b, "\nError:\n%s\n", indent(visible(p.ErrorText)))
	}
	if p.Excerpt != "" {
		fmt.Fprintf(b, "\nWhat it looks like:\n%s\n", indent(visible(p.Excerpt)))
	}
	file := book.PlaybookPath(p.Signature)
	switch pb, err := book.Playbook(p.Signature); {
	case err != nil:
		fmt.Fprintf(b, "\nThe steps (%s cannot be read: %s):\n", visibleLine(file), visibleLine(err.Error()))
	case pb == nil:
		fmt.Fprintf(b, "\nThe steps would start %s:\n", visibleLine(file))
	default:
		fmt.Fprintf(b, "\nThe steps would be added to the %d in %s:\n", len(pb.Steps), visibleLine(file))
	}
	fmt.Fprintf(b, "%s\n", indent(visible(ledger.FormatSteps(p.Steps))))
}

// proposalSummary is a proposal's text on one line, for lists.
func proposalSummary(p *proposal.Proposal) string {
	if !p.IsPlaybook() {
		return p.Content
	}
	what := p.Signature
	if first := firstLine(p.ErrorText, p.Excerpt); first != "" {
		what += " " + first
	}
	return what + ": " + strings.Join(p.Steps, " / ")
}

// firstLine is the first non-blank line of the first text that has one.
func firstLine(texts ...string) string {
	for _, t := range texts {
		for l := range strings.SplitSeq(t, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return l
			}
		}
	}
	return ""
}
