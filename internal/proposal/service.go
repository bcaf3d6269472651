package proposal

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ids"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
)

// Book is what proposals act on: the facts files, the proposals directory
// and the facts configuration (budgets, write policies).
type Book struct {
	FactsDir  string // on disk
	FactsRel  string // relative to the workspace root
	Proposals Dir
	// PlaybooksDir (on disk) and PlaybooksRel (relative to the workspace
	// root) are where approved playbook proposals go.
	PlaybooksDir, PlaybooksRel string
	Config                     config.Facts
	// Matcher finds similar facts; nil means Lexical.
	Matcher Matcher
	// Secrets is the write gate's policy ([secrets] in config.toml); the
	// zero Policy refuses every secret.
	Secrets secrets.Policy
	// Redactions lists what the gate replaced (redact mode) in the
	// writes made through the book, for the front-end to report.
	Redactions []secrets.Redaction
}

// RefusedError is a proposal memctl will not file.
type RefusedError struct {
	Reason string
	Hint   string
	// Duplicate: what it proposes is there already (a fact, a playbook's
	// steps, a pending proposal), so there is nothing to file.
	Duplicate bool
}

func (e *RefusedError) Error() string { return "proposal refused: " + e.Reason }

// ErrFactNotFound is matched by a *FactNotFoundError: ledger's, so one
// errors.Is tells a missing fact of either kind (a team fact, a personal
// preference).
var ErrFactNotFound = ledger.ErrFactNotFound

// FactNotFoundError is an update or removal of a fact id that no facts
// file holds.
type FactNotFoundError struct{ ID string }

func (e *FactNotFoundError) Error() string { return fmt.Sprintf("no fact has id %q", e.ID) }

// Unwrap makes errors.Is(err, ErrFactNotFound) work.
func (e *FactNotFoundError) Unwrap() error { return ErrFactNotFound }

// CategoryMismatchError is an update or removal whose category is not the
// category of the fact it names: a mistake in the call, since the fact's
// file is where the change goes.
type CategoryMismatchError struct {
	FactID, Category, FactCategory string
}

func (e *CategoryMismatchError) Error() string {
	return fmt.Sprintf("fact %s is in category %q, not %q", e.FactID, e.FactCategory, e.Category)
}

// StateError is a review action that does not fit the proposal's state.
type StateError struct{ Message string }

func (e *StateError) Error() string { return e.Message }

// ChangedError is a decision about a proposal that was decided or changed
// on disk after the reviewer read it (by another reviewer, or a withdrawal):
// the decision was made about text that is no longer there, so it is not
// applied. It matches fsx.ErrChanged.
type ChangedError struct {
	ID string
	// Status is the stored proposal's status now, Reviewer who decided it.
	Status, Reviewer string
}

func (e *ChangedError) Error() string {
	switch {
	case e.Status == StatusPending:
		return fmt.Sprintf("proposal %s changed since you read it", e.ID)
	case e.Reviewer != "":
		return fmt.Sprintf("proposal %s was %s by %s since you read it", e.ID, e.Status, e.Reviewer)
	}
	return fmt.Sprintf("proposal %s was %s since you read it", e.ID, e.Status)
}

func (e *ChangedError) Unwrap() error { return fsx.ErrChanged }

// Reread reads p's file again, for a decision taken after a reviewer read
// p: it returns the stored proposal when it is still exactly p, else a
// *ChangedError (or ErrNotFound when the file is gone). Call it under the
// workspace lock, then decide on what it returns.
func (b *Book) Reread(p *Proposal) (*Proposal, error) {
	now, err := b.Proposals.Get(p.ID)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(Encode(now), Encode(p)) {
		return nil, &ChangedError{ID: p.ID, Status: now.Status, Reviewer: now.Reviewer}
	}
	return now, nil
}

// BudgetError is an approval that would push the facts over budget.
type BudgetError struct {
	Lines, Budget int
	What          string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("approving would make %s %d lines, over the budget of %d", e.What, e.Lines, e.Budget)
}

// Input is what an agent proposes.
type Input struct {
	Action, Category, FactID, Content, Reason, Author string
	Evidence                                          []Evidence
	// NewCategory allows an add to a category that has no facts file yet;
	// its approval creates the file. Without it such an add is a
	// *CategoryError, so a typo does not start a new file.
	NewCategory bool
	// Pattern is stored in the proposal (Proposal.Pattern).
	Pattern string
	// KeepPending leaves the proposal for review whatever the category's
	// write policy says: for what memctl files on its own.
	KeepPending bool
	// DryRun makes every check and returns the proposal without writing
	// it (its id is not reserved).
	DryRun bool
}

var categoryName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })

func (b *Book) load() (*ledger.Ledger, error) { return ledger.Load(b.FactsDir, b.FactsRel) }

// Propose files a proposal after the refusal checks (the write gate's
// control characters and secrets, a fact over [facts] max_fact_chars, an
// unknown category, a read-only category, an exact duplicate of a fact or
// a pending proposal, an unknown fact id). Under an append or readwrite
// policy it is applied at once, unless in.KeepPending. rand supplies the
// id's nonce.
func (b *Book) Propose(in Input, now time.Time, rand io.Reader) (*Proposal, error) {
	now = now.UTC().Truncate(time.Second)
	in.Content = strings.TrimSpace(in.Content)
	switch {
	case in.Action != ActionAdd && in.Action != ActionUpdate && in.Action != ActionRemove:
		return nil, &RefusedError{Reason: fmt.Sprintf("unknown action %q", in.Action), Hint: "use --action add, update or remove"}
	case in.Action == ActionAdd && !categoryName().MatchString(in.Category):
		return nil, &RefusedError{Reason: fmt.Sprintf("%q is not a category name", in.Category), Hint: "categories are the file names in .ledger/facts without .md: lower-case letters, digits, '-' and '_'"}
	case in.Action != ActionRemove && in.Content == "":
		return nil, &RefusedError{Reason: "no text", Hint: "give the fact with --text or on stdin"}
	case strings.TrimSpace(in.Reason) == "":
		return nil, &RefusedError{Reason: "no reason", Hint: "say why the fact matters with --reason"}
	}
	if err := b.gateInput(&in); err != nil {
		return nil, err
	}
	if err := b.checkLength(in.Content); err != nil {
		return nil, err
	}
	l, err := b.load()
	if err != nil {
		return nil, err
	}
	if in.Action == ActionAdd {
		if err := checkCategory(l, in.Category, in.NewCategory); err != nil {
			return nil, err
		}
	}
	var target *ledger.Fact
	if in.Action != ActionAdd {
		f, ok := l.Fact(in.FactID)
		if !ok {
			return nil, &FactNotFoundError{ID: in.FactID}
		}
		if in.Category != "" && in.Category != f.Category {
			return nil, &CategoryMismatchError{FactID: f.ID, Category: in.Category, FactCategory: f.Category}
		}
		target = &f
		in.Category = target.Category
	}
	// A file in the middle of a merge has facts from both sides and line
	// counts with the markers: the similar facts and the budget effect
	// would be wrong, and an approval could not write it.
	if f, err := l.File(in.Category); err == nil {
		if err := f.Conflicted(); err != nil {
			return nil, err
		}
	}
	policy := b.Config.PolicyFor(in.Category)
	if policy == config.PolicyReadonly {
		return nil, &RefusedError{Reason: fmt.Sprintf("category %q is read-only ([facts.policy] %s = \"readonly\")", in.Category, in.Category),
			Hint: "only humans edit that file; put the information in task notes or ask a maintainer"}
	}
	if err := b.refuseDuplicates(in, l); err != nil {
		return nil, err
	}
	p := &Proposal{SchemaVersion: SchemaVersion, Kind: KindFact, Action: in.Action, Category: in.Category, FactID: in.FactID,
		Content: in.Content, Pattern: in.Pattern, Reason: strings.TrimSpace(in.Reason), Evidence: in.Evidence, Author: in.Author,
		CreatedAt: now, Status: StatusPending}
	if in.Action == ActionRemove && target != nil {
		p.Content = ""
	}
	matcher := b.Matcher
	if matcher == nil {
		matcher = Lexical{}
	}
	if in.Action != ActionRemove {
		for _, s := range matcher.Similar(in.Category, p.Content, l.Facts()) {
			if s.FactID != in.FactID {
				p.Similar = append(p.Similar, s)
			}
		}
	}
	if lines, budget, what := b.projected(l, p, target); lines > budget {
		p.OverBudget = true
		_ = what
	}
	p.ID, err = NewID(p, rand, func(id string) bool {
		_, err := os.Stat(filepath.Join(b.Proposals.Path, id+".json"))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	p.History = []Event{{Action: "proposed", By: in.Author, At: now, NewContent: p.Content}}
	if in.DryRun {
		return p, nil
	}
	if !in.KeepPending && (policy == config.PolicyReadwrite || (policy == config.PolicyAppend && in.Action == ActionAdd)) {
		return p, b.approve(p, l, target, "", "policy:"+policy, now, true)
	}
	return p, b.Proposals.Save(p)
}

// gateInput passes what a proposal stores through the write gate; in
// redact mode in's text comes back redacted.
func (b *Book) gateInput(in *Input) error {
	in.Evidence = slices.Clone(in.Evidence)
	fields := append(gateFields(&in.Content, &in.Reason, in.Evidence),
		secrets.Text{Name: "author", S: &in.Author, OneLine: true}, secrets.Text{Name: "fact", S: &in.FactID, OneLine: true})
	return b.gate(fields...)
}

// gate passes texts through the write gate under the book's policy,
// writing redacted text back and keeping the list of redactions.
func (b *Book) gate(ts ...secrets.Text) error {
	red, err := b.Secrets.Pass(ts...)
	if err != nil {
		return err
	}
	b.Redactions = append(b.Redactions, red...)
	return nil
}

// gateFields are the gate's fields for a proposal's text (none for a
// removal's empty text), reason and evidence (written into in place in
// redact mode: clone a slice the caller keeps).
func gateFields(text, reason *string, evidence []Evidence) []secrets.Text {
	fields := []secrets.Text{{Name: "text", S: text}, {Name: "reason", S: reason}}
	for i := range evidence {
		fields = append(fields, secrets.Text{Name: "evidence", S: &evidence[i].Ref, OneLine: true})
	}
	return fields
}

// checkLength refuses a fact longer than [facts] max_fact_chars (0: no
// limit), counted in characters.
func (b *Book) checkLength(text string) error {
	if limit := b.Config.MaxFactChars; limit > 0 {
		if n := utf8.RuneCountInString(text); n > limit {
			return &RefusedError{Reason: fmt.Sprintf("the text is %d characters, over the limit of %d ([facts] max_fact_chars)", n, limit),
				Hint: "state the fact in a sentence or two; keep longer material in a document in the repository and point to it"}
		}
	}
	return nil
}

// refuseDuplicates refuses what is already there: an add or update whose
// text a fact or a pending proposal of the category has, and a removal of
// a fact that a pending proposal already removes.
func (b *Book) refuseDuplicates(in Input, l *ledger.Ledger) error {
	if in.Action == ActionRemove {
		return b.refusePendingRemoval(in)
	}
	for _, f := range l.Facts() {
		if sameText(f.Text, in.Content) {
			return &RefusedError{Reason: fmt.Sprintf("fact %s in %s says exactly this already", f.ID, f.Category), Hint: "nothing to add; to change a fact use --action update --fact " + f.ID, Duplicate: true}
		}
	}
	pending, _, err := b.Proposals.List()
	if err != nil {
		return err
	}
	for _, p := range pending {
		if p.Status == StatusPending && p.Category == in.Category && sameText(p.Content, in.Content) {
			return &RefusedError{Reason: fmt.Sprintf("pending proposal %s proposes exactly this already", p.ID), Hint: "wait for its review (memctl proposals --json)", Duplicate: true}
		}
	}
	return nil
}

func (b *Book) refusePendingRemoval(in Input) error {
	pending, _, err := b.Proposals.List()
	if err != nil {
		return err
	}
	for _, p := range pending {
		if p.Status == StatusPending && p.Action == ActionRemove && p.FactID == in.FactID {
			return &RefusedError{Reason: fmt.Sprintf("pending proposal %s removes fact %s already", p.ID, in.FactID), Hint: "wait for its review (memctl proposals --json)"}
		}
	}
	return nil
}

// projected returns the line count a proposal would lead to: the file's
// when it would break the per-file budget, else the total.
func (b *Book) projected(l *ledger.Ledger, p *Proposal, target *ledger.Fact) (lines, budget int, what string) {
	delta := b.delta(l, p, target)
	fileLines := 0
	if f, err := l.File(p.Category); err == nil {
		fileLines = f.Lines
	}
	if fileLines+delta > b.Config.MaxFileLines {
		return fileLines + delta, b.Config.MaxFileLines, path.Join(b.FactsRel, p.Category+".md")
	}
	return l.Lines() + delta, b.Config.MaxLines, "the facts"
}

// delta is the number of lines approving p adds (negative: removes). An
// add to a category without a file counts the whole file its approval
// writes, heading included.
func (b *Book) delta(l *ledger.Ledger, p *Proposal, target *ledger.Fact) int {
	delta := 0
	switch p.Action {
	case ActionAdd:
		// What AppendFact writes: the fact, and a blank line before it
		// when the file ends in prose, not a fact.
		rel := path.Join(b.FactsRel, p.Category+".md")
		f, err := l.File(p.Category)
		if err != nil {
			src := newFile(p.Category)
			f = ledger.Parse(p.Category, rel, src)
		}
		out := ledger.AppendFact(f.Source(), f, p.Content, ids.Fact(p.Category, p.Content))
		before := 0
		if err == nil {
			before = f.Lines
		}
		return ledger.Parse(p.Category, rel, out).Lines - before
	case ActionUpdate:
		delta = len(ledger.FormatFact("- ", p.Content, "x")) - (target.EndLine - target.Line + 1)
	case ActionRemove:
		delta = -(target.EndLine - target.Line + 1)
	}
	return delta
}

// Budget is the effect a proposal would have on the line budgets.
type Budget struct {
	File                              string
	FileBefore, FileAfter, FileMax    int
	TotalBefore, TotalAfter, TotalMax int
}

// Over reports whether the proposal would break a budget.
func (b Budget) Over() bool { return b.FileAfter > b.FileMax || b.TotalAfter > b.TotalMax }

// BudgetEffect computes what approving p would do to the line budgets.
func (b *Book) BudgetEffect(p *Proposal) (Budget, error) {
	if p.IsPlaybook() {
		return Budget{}, &StateError{Message: fmt.Sprintf("proposal %s is for a playbook, which has no line budget", p.ID)}
	}
	l, err := b.load()
	if err != nil {
		return Budget{}, err
	}
	var target *ledger.Fact
	if f, ok := l.Fact(p.FactID); ok {
		target = &f
	}
	if p.Action != ActionAdd && target == nil {
		return Budget{}, &StateError{Message: fmt.Sprintf("fact %s no longer exists", p.FactID)}
	}
	delta := b.delta(l, p, target)
	out := Budget{File: path.Join(b.FactsRel, p.Category+".md"), FileMax: b.Config.MaxFileLines,
		TotalBefore: l.Lines(), TotalAfter: l.Lines() + delta, TotalMax: b.Config.MaxLines}
	if f, err := l.File(p.Category); err == nil {
		out.FileBefore = f.Lines
	}
	out.FileAfter = out.FileBefore + delta
	return out, nil
}

// Approve applies a pending proposal (a playbook proposal: see
// approvePlaybook), with text replacing its content when
// the reviewer edited it, and records who approved it and when. Only an
// edit that changes the text is recorded (an "edited" event with the old
// and new content); a removal has no text to edit. An approval that would
// exceed a line budget is a *BudgetError unless overBudget.
func (b *Book) Approve(p *Proposal, text, reviewer string, overBudget bool, now time.Time) error {
	if p.Status != StatusPending {
		return &StateError{Message: fmt.Sprintf("proposal %s is %s, not pending", p.ID, p.Status)}
	}
	if p.IsPlaybook() {
		return b.approvePlaybook(p, text, reviewer, now)
	}
	if p.Action == ActionRemove && strings.TrimSpace(text) != "" {
		return &RefusedError{Reason: fmt.Sprintf("proposal %s removes fact %s: there is no text to edit", p.ID, p.FactID),
			Hint: "approve it without --text, or reject it with --feedback"}
	}
	l, err := b.load()
	if err != nil {
		return err
	}
	var target *ledger.Fact
	if p.Action != ActionAdd {
		if f, ok := l.Fact(p.FactID); ok {
			target = &f
		}
		if target == nil {
			return &StateError{Message: fmt.Sprintf("fact %s, which proposal %s changes, no longer exists", p.FactID, p.ID)}
		}
	}
	edited := ""
	if text = strings.TrimSpace(text); text != "" && text != p.Content {
		edited = text
	}
	// The fact that would be written passes the gate whether or not it was
	// edited: a proposal file may come from a pull, written by hand. So do
	// the reason and the evidence, which the approved proposal file (and an
	// approval's commit message) carries into git.
	final := cmp.Or(edited, p.Content)
	if p.Action == ActionRemove {
		final = ""
	}
	// In redact mode what is written (the fact, the proposal file's
	// reason and evidence) is the redacted text.
	if err := b.gate(gateFields(&final, &p.Reason, p.Evidence)...); err != nil {
		return err
	}
	if final != cmp.Or(edited, p.Content) && p.Action != ActionRemove {
		if edited != "" {
			edited = final
		} else {
			p.Content = final
		}
	}
	if p.Action != ActionRemove {
		if err := b.checkLength(final); err != nil {
			return err
		}
	}
	if edited != "" {
		p.History = append(p.History, Event{Action: "edited", By: reviewer, At: now.UTC().Truncate(time.Second), OldContent: p.Content, NewContent: edited})
		p.Content = edited
	}
	if lines, budget, what := b.projected(l, p, target); lines > budget && !overBudget {
		return &BudgetError{Lines: lines, Budget: budget, What: what}
	}
	return b.approve(p, l, target, "", reviewer, now, false)
}

// approve writes the fact change and the approved proposal.
func (b *Book) approve(p *Proposal, l *ledger.Ledger, target *ledger.Fact, _ string, reviewer string, now time.Time, auto bool) error {
	now = now.UTC().Truncate(time.Second)
	file := filepath.Join(b.FactsDir, p.Category+".md")
	src, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if errors.Is(err, os.ErrNotExist) {
		src = newFile(p.Category)
	}
	parsed := ledger.Parse(p.Category, path.Join(b.FactsRel, p.Category+".md"), src)
	if err := parsed.Conflicted(); err != nil {
		return err
	}
	old := ""
	var out []byte
	switch p.Action {
	case ActionAdd:
		p.AppliedFactID = ids.Fact(p.Category, p.Content)
		out = ledger.AppendFact(src, parsed, p.Content, p.AppliedFactID)
	case ActionUpdate:
		old = target.Text
		p.AppliedFactID = target.ID
		out = ledger.ReplaceFact(src, *target, p.Content, target.ID)
	case ActionRemove:
		old = target.Text
		p.AppliedFactID = target.ID
		out = ledger.RemoveFact(src, *target)
	}
	if err := fsx.WriteFile(file, out, 0o644); err != nil {
		return err
	}
	p.Status, p.Reviewer, p.ReviewedAt = StatusApproved, reviewer, &now
	action := "approved"
	if auto {
		action = "applied by policy"
	}
	applied := p.Content
	if p.Action == ActionRemove {
		applied = "" // a removal writes no text
	}
	p.History = append(p.History, Event{Action: action, By: reviewer, At: now, OldContent: old, NewContent: applied})
	return b.Proposals.Save(p)
}

// newFile is what a new category's facts file starts with.
func newFile(category string) []byte { return []byte("# " + titleCase(category) + "\n\n") }

// Reject marks a pending proposal rejected with feedback for its author.
func (b *Book) Reject(p *Proposal, feedback, reviewer string, now time.Time) error {
	if p.Status != StatusPending {
		return &StateError{Message: fmt.Sprintf("proposal %s is %s, not pending", p.ID, p.Status)}
	}
	if strings.TrimSpace(feedback) == "" {
		return &RefusedError{Reason: "a rejection needs feedback", Hint: `say what the agent should do differently: --feedback "…"`}
	}
	if err := b.gate(secrets.Text{Name: "feedback", S: &feedback}); err != nil {
		return err
	}
	now = now.UTC().Truncate(time.Second)
	p.Status, p.Reviewer, p.ReviewedAt, p.Feedback = StatusRejected, reviewer, &now, strings.TrimSpace(feedback)
	p.History = append(p.History, Event{Action: "rejected", By: reviewer, At: now, Feedback: p.Feedback})
	return b.Proposals.Save(p)
}

// Withdraw marks a pending proposal withdrawn.
func (b *Book) Withdraw(p *Proposal, by string, now time.Time) error {
	if p.Status != StatusPending {
		return &StateError{Message: fmt.Sprintf("proposal %s is %s, not pending", p.ID, p.Status)}
	}
	now = now.UTC().Truncate(time.Second)
	p.Status, p.ReviewedAt = StatusWithdrawn, &now
	p.History = append(p.History, Event{Action: "withdrawn", By: by, At: now})
	return b.Proposals.Save(p)
}

func titleCase(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Filter keeps the proposals with one of the statuses (all when empty).
func Filter(ps []*Proposal, statuses ...string) []*Proposal {
	if len(statuses) == 0 || slices.Contains(statuses, "all") {
		return ps
	}
	var out []*Proposal
	for _, p := range ps {
		if slices.Contains(statuses, p.Status) {
			out = append(out, p)
		}
	}
	return out
}
