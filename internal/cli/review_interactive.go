package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/secrets"
)

// interactiveReview walks the pending proposals, oldest first. It holds
// the workspace lock only while it applies a decision, so agents write
// while a person reads; under the lock it reads the proposal again and
// applies nothing if it was decided or changed in the meantime.
func interactiveReview(ctx context.Context, env *Env, ws *config.Workspace, book *proposal.Book, opts reviewOptions, accessible bool) error {
	all, _, err := book.Proposals.List()
	if err != nil {
		return err
	}
	pending := proposal.Filter(all, proposal.StatusPending)
	if len(pending) == 0 {
		env.notef("no pending proposals")
		return nil
	}
	prompter := env.Prompter
	switch {
	case prompter != nil:
	case accessible:
		// Line prompts on stderr, answers from stdin.
		prompter = newLinePrompter(env.In, env.Err)
	default:
		// The full-screen form needs the terminal itself for raw input.
		prompter = &huhPrompter{in: env.In, out: env.Out}
	}
	reviewer, email := env.reviewer(ws, opts.reviewer)
	var t tally
	for i, seen := range pending {
		// Show the proposal as it is now: another reviewer may have
		// decided it while this one read the ones before.
		p, err := book.Proposals.Get(seen.ID)
		if err == nil && p.Status != proposal.StatusPending {
			err = &proposal.ChangedError{ID: p.ID, Status: p.Status, Reviewer: p.Reviewer}
		}
		if err != nil {
			t.note(env, seen.ID, err)
			continue
		}
		screen := fmt.Sprintf("[%d of %d] %s\n%s", i+1, len(pending), visibleLine(p.ID), reviewScreen(book, p))
		d, applied, err := ask(ctx, prompter, screen, p, func(d Decision) error {
			return decideLocked(ctx, env, ws, book, p, d, reviewer, email, opts)
		})
		switch {
		case err != nil:
			t.summary(env)
			return withHint(err, "the decisions taken before are saved; run memctl review again for the rest")
		case d.Choice == choiceQuit:
			t.summary(env)
			return t.exit()
		case d.Choice == choiceSkip:
			t.skipped++
		case applied != nil && ctx.Err() != nil:
			t.summary(env)
			return errInterrupted
		case applied != nil:
			t.note(env, p.ID, applied)
		default:
			t.count(d.Choice)
		}
	}
	t.summary(env)
	return t.exit()
}

// ask asks the reviewer about p until a decision is skipped, quit or
// applied with apply. A decision that the write gate refuses (a secret, a
// control character, a fact over max_fact_chars) applies nothing and is not
// a failure: p is asked about again, with the reason, so that the reviewer
// can change the text, reject or skip. applied is what apply returned
// otherwise; err is the prompter's (an interrupt).
func ask(ctx context.Context, prompter Prompter, screen string, p *proposal.Proposal, apply func(Decision) error) (d Decision, applied, err error) {
	var refused *Refusal
	for {
		if d, err = prompter.Decide(ctx, screen, p, refused); err != nil || d.Choice == choiceQuit || d.Choice == choiceSkip {
			return d, nil, err
		}
		if d.Choice == choiceEdit && !edited(p, d.Text) {
			// The Prompter contract sends an empty or unchanged edit back to
			// the choice; one from elsewhere that does not must not approve.
			d.Choice = choiceSkip
			return d, nil, nil
		}
		applied = apply(d)
		if refused = refusal(d, applied); refused == nil {
			return d, applied, nil
		}
	}
}

// refusal is err as a *Refusal of d when the write gate refused d's text,
// else nil.
func refusal(d Decision, err error) *Refusal {
	var (
		secret *secrets.RefusedError
		text   *secrets.TextError
		ref    *proposal.RefusedError
	)
	if !errors.As(err, &secret) && !errors.As(err, &text) && !errors.As(err, &ref) {
		return nil
	}
	return &Refusal{Decision: d, Reason: err.Error(), Hint: hintFor(proposalError(err))}
}

// exit is the review's outcome once every decision is reported.
func (t *tally) exit() error {
	switch {
	case t.failed > 0:
		return &silentError{code: exitFailure}
	case t.changed > 0:
		return &silentError{code: exitConflict}
	}
	return nil
}

// decideLocked applies d under the workspace lock to the proposal as the
// reviewer saw it; if it was decided or changed since, it applies nothing
// and returns a *proposal.ChangedError.
func decideLocked(ctx context.Context, env *Env, ws *config.Workspace, book *proposal.Book, seen *proposal.Proposal, d Decision, reviewer, email string, opts reviewOptions) error {
	lock, err := env.LockScoped(ctx, ws)
	if err != nil {
		return err
	}
	defer lock.Release()
	p, err := book.Reread(seen)
	if err != nil {
		return err
	}
	// What was redacted is reported only when it was written: a decision
	// the gate passed can still fail after it (a budget, say).
	defer func() { book.Redactions = nil }()
	now := env.Now()
	if d.Choice == choiceReject {
		if err := book.Reject(p, d.Text, reviewer, now); err != nil {
			return err
		}
		env.reportRedactions(book.Redactions)
		return nil
	}
	text := ""
	if d.Choice == choiceEdit {
		text = d.Text
	}
	if err := book.Approve(p, text, reviewer, opts.overBudget, now); err != nil {
		return err
	}
	env.reportRedactions(book.Redactions)
	if opts.commit {
		return commitApproval(ws, book, p, reviewer, email, now)
	}
	return nil
}

// tally counts an interactive review's outcomes for its summary line.
type tally struct {
	approved, edited, rejected, skipped, changed, failed int
}

func (t *tally) count(choice string) {
	switch choice {
	case choiceApprove:
		t.approved++
	case choiceEdit:
		t.edited++
	case choiceReject:
		t.rejected++
	}
}

// note reports a decision that was not applied and counts it.
func (t *tally) note(env *Env, id string, err error) {
	var changed *proposal.ChangedError
	if errors.As(err, &changed) {
		env.warnf("%v; nothing applied, moving on", err)
		t.changed++
		return
	}
	env.warnf("%s: %v", id, proposalError(err))
	t.failed++
}

func (t *tally) summary(env *Env) {
	line := fmt.Sprintf("approved %d, edited %d, rejected %d, skipped %d", t.approved, t.edited, t.rejected, t.skipped)
	if t.changed > 0 {
		line += fmt.Sprintf(", %d decided or changed by someone else meanwhile", t.changed)
	}
	if t.failed > 0 {
		line += fmt.Sprintf(", %d failed", t.failed)
	}
	env.notef("%s", line)
}
