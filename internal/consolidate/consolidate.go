// Package consolidate turns what recurs across run records into proposals
// for review: a gotcha, an error or a failing file met in several runs
// becomes a pitfalls fact proposal, and an error that a later run fixed a
// candidate playbook proposal. runs finds the patterns and proposal files
// them; this package, above both, joins the two.
//
// Nothing it files is ever applied on its own: every proposal waits for a
// person in memctl review, whatever the category's write policy. Each
// carries the key of its pattern, and a pattern that any proposal (pending,
// approved, rejected or withdrawn) carries is never filed again.
package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
	"github.com/memctl/memctl/internal/secrets"
)

// Category is the facts category of the fact proposals it files; memctl
// init creates it.
const Category = "pitfalls"

// Author is who the proposals are by when the request names no one.
const Author = "memctl"

// KindFix is the pattern kind of a candidate playbook.
const KindFix = "fix"

// Request says where the runs and proposals are and how to file.
type Request struct {
	Runs runs.Store
	Book *proposal.Book
	Now  time.Time
	Rand io.Reader // the proposal ids' nonces
	// Author is who files (default Author).
	Author string
	// DryRun makes every check and files nothing.
	DryRun bool
	// NoFacts: the facts layer is off, so patterns that would be fact
	// proposals are refused (with a warning) rather than filed.
	NoFacts bool
}

// Outcome is one pattern and what became of it.
type Outcome struct {
	Kind    string   // runs.PatternGotcha, PatternError, PatternFile or KindFix
	Pattern string   // its key
	Runs    []string // the runs it cites, oldest first (a fix: the failed runs, then the fixed one)
	// Proposal is what was filed (a dry run: what would be, without an
	// id); for a skipped pattern, the proposal that has it already; nil
	// when refused, or skipped because a fact, a playbook or another
	// proposal says it already.
	Proposal *proposal.Proposal
	// Warning says why a refused pattern was not filed, or which fact,
	// playbook or proposal says a skipped one already.
	Warning string
}

// Result is what consolidation filed, skipped because a proposal has the
// pattern already (or a fact, a playbook or a pending proposal says it),
// and refused (the write gate, a read-only or missing
// category, a duplicate fact…), with the run and proposal files it could
// not read.
type Result struct {
	Filed, Skipped, Refused []Outcome
	Problems                []error
}

// Run files a proposal for each pattern that recurs in at least
// runs.MinRecurrence runs and no proposal has yet. The caller holds the
// workspace lock unless req.DryRun.
func Run(ctx context.Context, req Request) (Result, error) {
	var res Result
	l, err := req.Runs.List(runs.Filter{})
	if err != nil {
		return res, err
	}
	res.Problems = l.Problems
	return res, file(ctx, req, &res, runs.Patterns(l.Entries, runs.MinRecurrence))
}

// file files a proposal for each pattern: its fix's candidate playbook
// when it has one, else a fact.
func file(ctx context.Context, req Request, res *Result, patterns []runs.Pattern) error {
	if len(patterns) == 0 {
		return nil
	}
	f, err := newFiler(req, res)
	if err != nil {
		return err
	}
	for _, p := range patterns {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Fix != nil {
			err = f.fix(*p.Fix, p.Runs)
		} else {
			err = f.fact(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Candidates files a candidate playbook proposal for each error that
// recording r shows fixed (runs.FixesFor): r succeeded after failed runs
// on its files, or failed before a success on them. It reads the run list
// (the cache makes that cheap) and the proposals only when there is a fix.
// The caller holds the workspace lock unless req.DryRun.
func Candidates(ctx context.Context, req Request, r *runs.Record) (Result, error) {
	return afterRecord(ctx, req, r, false)
}

// AfterRecord is what a front-end calls after writing run record r (memctl
// run record, flush): Candidates for r, then, with all set ([runs]
// consolidate = true, at the end of a session), every recurring pattern as
// Run files them, from one reading of the runs and the proposals. A
// candidate that both find is filed once.
func AfterRecord(ctx context.Context, req Request, r *runs.Record, all bool) (Result, error) {
	return afterRecord(ctx, req, r, all)
}

func afterRecord(ctx context.Context, req Request, r *runs.Record, all bool) (Result, error) {
	var res Result
	if !all && len(r.FilesChanged) == 0 && len(r.Errors) == 0 {
		return res, nil
	}
	l, err := req.Runs.List(runs.Filter{})
	if err != nil {
		return res, err
	}
	var patterns []runs.Pattern
	for _, fx := range runs.FixesFor(r, l.Entries) {
		patterns = append(patterns, runs.Pattern{Kind: runs.PatternError, Key: fx.Key(), Signature: fx.Signature, Runs: fx.Failed, Fix: &fx})
	}
	if all {
		patterns = append(patterns, runs.Patterns(l.Entries, runs.MinRecurrence)...)
	}
	if len(patterns) > 0 || all {
		res.Problems = l.Problems
	}
	return res, file(ctx, req, &res, patterns)
}

// filer files proposals for patterns, once each.
type filer struct {
	req   Request
	res   *Result
	known map[string]*proposal.Proposal // pattern key → the proposal that has it
}

func newFiler(req Request, res *Result) (*filer, error) {
	if req.Author == "" {
		req.Author = Author
	}
	all, problems, err := req.Book.Proposals.List()
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		res.Problems = append(res.Problems, fmt.Errorf("%s:%d: %s", p.File, p.Line, p.Message))
	}
	known := map[string]*proposal.Proposal{}
	for _, p := range all {
		if p.Pattern != "" && known[p.Pattern] == nil {
			known[p.Pattern] = p
		}
	}
	return &filer{req: req, res: res, known: known}, nil
}

// fact files the pitfalls fact proposal of p.
func (f *filer) fact(p runs.Pattern) error {
	o := Outcome{Kind: p.Kind, Pattern: p.Key, Runs: p.Runs}
	if f.skip(&o) {
		return nil
	}
	if f.req.NoFacts {
		return f.refuse(o, errors.New("the facts layer is off ([facts] enabled = false)"))
	}
	in := proposal.Input{Action: proposal.ActionAdd, Category: Category, Author: f.req.Author, Evidence: evidence(p.Runs),
		Pattern: p.Key, KeepPending: true, DryRun: f.req.DryRun}
	list := runList(p.Runs)
	switch p.Kind {
	case runs.PatternGotcha:
		in.Content = p.Text
		in.Reason = fmt.Sprintf("The same gotcha was recorded in %d runs: %s.", len(p.Runs), list)
	case runs.PatternError:
		in.Content = fmt.Sprintf("The error with signature %s keeps coming back: %s", p.Signature, oneLine(p.Text))
		in.Reason = fmt.Sprintf("%d runs met it (%s) and no later run on their files succeeded.", len(p.Runs), list)
	case runs.PatternFile:
		in.Content = fmt.Sprintf("Changes to %s have failed in several runs: check what those runs ran into (memctl runs --status failure) before changing it.", p.Text)
		in.Reason = fmt.Sprintf("%d runs failed on it: %s.", len(p.Runs), list)
	}
	prop, err := f.req.Book.Propose(in, f.req.Now, f.req.Rand)
	return f.filed(o, prop, err)
}

// fix files the candidate playbook proposal of fx; cited are the runs of
// the error pattern it fixes.
func (f *filer) fix(fx runs.Fix, cited []string) error {
	o := Outcome{Kind: KindFix, Pattern: fx.Key(), Runs: append(append([]string(nil), cited...), fx.Fixed.RunID)}
	if f.skip(&o) {
		return nil
	}
	in := proposal.PlaybookInput{Signature: fx.Signature, Excerpt: fx.Excerpt, Steps: steps(fx.Fixed),
		Reason: fmt.Sprintf("Candidate filed by memctl: %s failed with this error; the later run %s, which changed the same files, succeeded. Check the steps before approving.",
			runList(fx.Failed), fx.Fixed.RunID),
		Author: f.req.Author, Evidence: evidence(o.Runs), Pattern: o.Pattern, DryRun: f.req.DryRun}
	if s := signature.Of(fx.Excerpt); s.Hash == fx.Signature {
		in.ErrorText = s.Text // the excerpt was not cut: its normalised text is the error's
	}
	prop, err := f.req.Book.ProposePlaybook(in, f.req.Now, f.req.Rand)
	return f.filed(o, prop, err)
}

// skip reports whether a proposal has o's pattern already, noting it.
func (f *filer) skip(o *Outcome) bool {
	p := f.known[o.Pattern]
	if p == nil {
		return false
	}
	o.Proposal = p
	f.res.Skipped = append(f.res.Skipped, *o)
	return true
}

// filed notes what filing o gave: the proposal, or a refusal; other
// errors (reading or writing files) stop consolidation.
func (f *filer) filed(o Outcome, p *proposal.Proposal, err error) error {
	var ref *proposal.RefusedError
	switch {
	case errors.As(err, &ref) && ref.Duplicate:
		o.Warning = ref.Reason
		f.res.Skipped = append(f.res.Skipped, o)
		return nil
	case err != nil && refusal(err):
		return f.refuse(o, err)
	case err != nil:
		return err
	}
	if f.req.DryRun {
		p.ID, p.File = "", ""
	}
	o.Proposal = p
	f.known[o.Pattern] = p
	f.res.Filed = append(f.res.Filed, o)
	return nil
}

func (f *filer) refuse(o Outcome, err error) error {
	o.Warning = err.Error()
	f.res.Refused = append(f.res.Refused, o)
	return nil
}

// refusal reports whether err is a proposal refused for what it says or
// where it would go, rather than a failure to read or write.
func refusal(err error) bool {
	var (
		ref  *proposal.RefusedError
		cat  *proposal.CategoryError
		sref *secrets.RefusedError
		stxt *secrets.TextError
		cfl  *ledger.ConflictError
		pbe  *ledger.PlaybookError
	)
	return errors.As(err, &ref) || errors.As(err, &cat) || errors.As(err, &sref) || errors.As(err, &stxt) ||
		errors.As(err, &cfl) || errors.As(err, &pbe)
}

// steps are the fix steps a successful run's digest gives: its changes and
// decisions; when it has neither, the files it changed. Its next steps are
// what it left undone, not how it fixed the error.
func steps(r *runs.Record) []string {
	out := append(append([]string(nil), r.Digest.Changes...), r.Digest.Decisions...)
	if len(out) == 0 {
		out = []string{fmt.Sprintf("Change %s as run %s did.", strings.Join(r.FilesChanged, ", "), r.RunID)}
	}
	return out
}

// runList names runs in a reason: all of them up to maxListed, else the
// first ones and how many more (the evidence lists every one).
func runList(ids []string) string {
	if len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxListed-1], ", "), len(ids)-maxListed+1)
}

const maxListed = 6

func evidence(ids []string) []proposal.Evidence {
	out := make([]proposal.Evidence, len(ids))
	for i, id := range ids {
		out[i] = proposal.Evidence{Kind: "run", Ref: id}
	}
	return out
}

// oneLine is s with its lines joined by spaces, for a fact's one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
