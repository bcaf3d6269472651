package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/huh"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/proposal"
)

// Review choices.
const (
	choiceApprove = "approve"
	choiceEdit    = "edit"
	choiceReject  = "reject"
	choiceSkip    = "skip"
	choiceQuit    = "quit"
)

// Decision is what a reviewer chose for one proposal: the choice, and the
// edited fact or the feedback that goes with it.
type Decision struct {
	Choice string
	Text   string
}

// Prompter asks a reviewer to decide on a proposal. The shipped one uses
// huh; tests may put in a scripted one.
type Prompter interface {
	Decide(ctx context.Context, screen string, p *proposal.Proposal) (Decision, error)
}

// huhPrompter asks with huh: a full-screen form on a terminal, or line by
// line in accessible mode.
type huhPrompter struct {
	in         io.Reader
	out        io.Writer
	accessible bool
}

func (h *huhPrompter) Decide(ctx context.Context, screen string, p *proposal.Proposal) (Decision, error) {
	choice := ""
	if h.accessible {
		choice = choiceQuit // what an exhausted stdin answers
	}
	sel := huh.NewSelect[string]().Title("Decision").Options(
		huh.NewOption("Approve", choiceApprove),
		huh.NewOption("Edit, then approve", choiceEdit),
		huh.NewOption("Reject with feedback", choiceReject),
		huh.NewOption("Skip for now", choiceSkip),
		huh.NewOption("Quit", choiceQuit),
	).Value(&choice)
	if h.accessible {
		fmt.Fprintln(h.out, screen)
		if err := sel.RunAccessible(h.out, h.in); err != nil {
			return Decision{}, err
		}
	} else {
		note := huh.NewNote().Title("Review").Description(screen)
		if err := huh.NewForm(huh.NewGroup(note, sel)).WithInput(h.in).WithOutput(h.out).RunWithContext(ctx); err != nil {
			return Decision{}, abortErr(err)
		}
	}
	d := Decision{Choice: choice}
	switch choice {
	case choiceEdit:
		// Escaped like the screen: the file may come from a pull, and the
		// gate refuses the raw characters on approval anyway.
		d.Text = visible(p.Content)
		field := huh.NewText().Title("The fact as it should read").Value(&d.Text)
		if err := h.run(ctx, field); err != nil {
			return Decision{}, err
		}
	case choiceReject:
		field := huh.NewText().Title("Feedback for the agent (why, and what to do instead)").Value(&d.Text)
		if err := h.run(ctx, field); err != nil {
			return Decision{}, err
		}
		if strings.TrimSpace(d.Text) == "" {
			d.Choice = choiceSkip // a rejection needs feedback
		}
	}
	return d, nil
}

func (h *huhPrompter) run(ctx context.Context, field huh.Field) error {
	if h.accessible {
		return field.RunAccessible(h.out, h.in)
	}
	return abortErr(huh.NewForm(huh.NewGroup(field)).WithInput(h.in).WithOutput(h.out).RunWithContext(ctx))
}

// abortErr turns huh's Ctrl-C into an interrupt.
func abortErr(err error) error {
	if errors.Is(err, huh.ErrUserAborted) {
		return context.Canceled
	}
	return err
}

// lineReader hands out at most one line per Read, so that each of huh's
// accessible prompts, which wrap the input in a fresh bufio.Scanner,
// consumes exactly the one answer meant for it.
type lineReader struct{ r *bufio.Reader }

func (l *lineReader) Read(p []byte) (int, error) {
	line, err := l.r.ReadSlice('\n')
	if len(line) > len(p) {
		n := copy(p, line)
		// Put the rest back by reading it again next time.
		l.r = bufio.NewReader(io.MultiReader(strings.NewReader(string(line[n:])), l.r))
		return n, nil
	}
	n := copy(p, line)
	if errors.Is(err, bufio.ErrBufferFull) {
		err = nil
	}
	return n, err
}

// interactiveReview walks the pending proposals, oldest first.
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
		// Line prompts on stderr, answers from stdin one line each.
		prompter = &huhPrompter{in: &lineReader{r: bufio.NewReader(env.In)}, out: env.Err, accessible: true}
	default:
		// The full-screen form needs the terminal itself for raw input.
		prompter = &huhPrompter{in: env.In, out: env.Out}
	}
	reviewer, email := env.reviewer(ws, opts.reviewer)
	counts := map[string]int{}
	for i, p := range pending {
		screen := fmt.Sprintf("[%d of %d]\n%s", i+1, len(pending), reviewScreen(book, p))
		d, err := prompter.Decide(ctx, screen, p)
		if err != nil {
			return err
		}
		if d.Choice == choiceQuit {
			break
		}
		now := env.Now()
		switch d.Choice {
		case choiceApprove, choiceEdit:
			text := ""
			if d.Choice == choiceEdit {
				text = d.Text
			}
			err = book.Approve(p, text, reviewer, opts.overBudget, now)
			if err == nil && opts.commit {
				err = commitApproval(ws, p, reviewer, email, now)
			}
		case choiceReject:
			err = book.Reject(p, d.Text, reviewer, now)
		}
		if err != nil {
			env.warnf("%s: %v", p.ID, proposalError(err))
			counts["failed"]++
			continue
		}
		counts[d.Choice]++
	}
	env.notef("approved %d, edited %d, rejected %d, skipped %d", counts[choiceApprove], counts[choiceEdit], counts[choiceReject], counts[choiceSkip])
	if counts["failed"] > 0 {
		return &silentError{code: exitFailure}
	}
	return nil
}
