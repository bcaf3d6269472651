package prime

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
)

// Limits of the sections that list records rather than the memory
// itself: the rest is counted as omitted, with the command that lists it.
const (
	rejectedLimit = 10
	warningsLimit = 10
)

// drafts are the sections in the order of their importance, each with its
// lines in their own order of importance; cut fits them to the budget.
func (g *gathered) drafts(ws *config.Workspace, opts Options) []draft {
	var out []draft
	for _, d := range []draft{
		g.factsDraft(),
		g.pinsDraft(ws),
		g.lastSessionDraft(opts),
		g.preferencesDraft(),
		g.inProgressDraft(opts),
		g.readyDraft(),
		g.rejectedDraft(opts),
		g.proposalsDraft(),
		g.warningsDraft(ws),
	} {
		if len(d.Lines) > 0 || d.Omitted > 0 {
			if d.Lines == nil {
				d.Lines = []Line{}
			}
			out = append(out, d)
		}
	}
	return out
}

// factText is a fact as a line: its id, category and text, the text's
// own lines indented under the item.
func factText(f ledger.Fact, label string) string {
	return fmt.Sprintf("- %s [%s] %s", f.ID, label, strings.ReplaceAll(f.Text, "\n", "\n  "))
}

// factsDraft: every fact but the preferences (which have their own
// section) and the pinned ones (printed among the pins), ranked invariants and pitfalls first, then by the time of
// their approval, newest first, then those with no known approval in
// ledger order; printed in ledger order.
func (g *gathered) factsDraft() draft {
	d := draft{Section: Section{Name: "facts", Title: "Verified facts (cite by id):",
		Hint: "memctl facts"}, noun: "facts",
		display: func(a, b Line) int { return a.order - b.order }}
	if g.facts == nil {
		return d
	}
	approved := g.approved
	type ranked struct {
		line  Line
		first bool
		at    time.Time
	}
	var all []ranked
	pinned := g.pinnedFacts()
	for i, f := range g.facts.Facts() {
		if f.Category == ledger.PreferencesCategory || pinned[f.ID] {
			continue
		}
		l := newLine(f.ID, factText(f, f.Category))
		l.order = i
		all = append(all, ranked{line: l, first: f.Category == "invariants" || f.Category == "pitfalls", at: approved[f.ID]})
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		if a.first != b.first {
			if a.first {
				return -1
			}
			return 1
		}
		if c := b.at.Compare(a.at); c != 0 { // newest first; unknown (zero) last
			return c
		}
		return a.line.order - b.line.order
	})
	for _, r := range all {
		d.Lines = append(d.Lines, r.line)
	}
	return d
}

// pinsDraft: the actor's pins in the order they were pinned, each with
// what it names now.
func (g *gathered) pinsDraft(ws *config.Workspace) draft {
	d := draft{Section: Section{Name: "pins", Title: "Your pins:", Hint: "memctl pins"}, noun: "pinned items"}
	if len(g.pins) == 0 {
		return d
	}
	f := g.finder(ws)
	for _, p := range g.pins {
		if !g.layerOn(ws, p.Kind) {
			continue
		}
		it, err := f.Find(p.ID, p.Kind)
		if err != nil {
			g.problem(partPins, "", fmt.Errorf("pin %s: %w", p.ID, err), "that pin is left out")
			continue
		}
		d.Lines = append(d.Lines, newLine(it.ID, fmt.Sprintf("- %s %s %s", it.ID, it.Kind, it.Text)))
	}
	return d
}

// pinnedFacts are the ids of the facts the actor pinned: they are printed
// once, among the pins, and not again among the facts or preferences.
func (g *gathered) pinnedFacts() map[string]bool {
	out := map[string]bool{}
	for _, p := range g.pins {
		if p.Kind == KindFact {
			out[p.ID] = true
		}
	}
	return out
}

// layerOn reports whether the layer of a kind of pin is read.
func (g *gathered) layerOn(ws *config.Workspace, kind string) bool {
	switch kind {
	case KindFact:
		return g.facts != nil
	case KindTask:
		return g.summary != nil
	case KindRun:
		return g.runs != nil
	case KindPlaybook:
		return ws.Config.Runs.Enabled
	}
	return false
}

func (g *gathered) finder(ws *config.Workspace) *Finder {
	f := &Finder{Facts: g.facts, FactsUnread: g.factsUnread, PlaybooksDir: ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir}
	if g.summary != nil {
		f.Task = g.summary.lookup
	}
	if g.runs != nil {
		f.Run = g.runs.record
	}
	return f
}

// lastSessionDraft: the digest of the actor's newest run on this branch
// that says something (runsView.last; a run flushed with nothing in it is
// passed over).
func (g *gathered) lastSessionDraft(opts Options) draft {
	d := draft{Section: Section{Name: "last_session"}, noun: "lines of it"}
	if g.runs == nil || opts.Branch == "" {
		return d
	}
	r, err := g.runs.last(opts.Branch, opts.Actor)
	if err != nil {
		g.problem(partRuns, "", err, "the last session is not shown")
		return d
	}
	if r == nil {
		return d
	}
	when := ""
	if t := r.SortTime(); !t.IsZero() {
		when = ", " + t.UTC().Format(time.RFC3339)
	}
	d.Title = fmt.Sprintf("Last session on %s (%s, %s%s):", opts.Branch, r.RunID, r.StatusOrUnknown(), when)
	d.Hint = "memctl runs show " + r.RunID
	add := func(label, text string) {
		if text = strings.TrimSpace(text); text != "" {
			d.Lines = append(d.Lines, newLine(r.RunID, fmt.Sprintf("- %s %s: %s", r.RunID, label, clip(oneLine(text), 2*maxNote))))
		}
	}
	add("intent", r.Digest.Intent)
	add("result", r.Digest.Result)
	for _, s := range r.Digest.NextSteps {
		add("next step", s)
	}
	for _, s := range r.Digest.Gotchas {
		add("gotcha", s)
	}
	for _, s := range r.Digest.Decisions {
		add("decision", s)
	}
	for _, s := range r.Digest.Changes {
		add("change", s)
	}
	for _, e := range r.Errors {
		add("error", e.Signature+": "+e.Excerpt)
	}
	add("compact summary", r.CompactSummary())
	return d
}

// preferencesDraft: the team's preferences (the facts of category
// preferences, not repeated among the facts), then the user's own.
func (g *gathered) preferencesDraft() draft {
	d := draft{Section: Section{Name: "preferences",
		Title: "Preferences ([team] shared, [personal] yours only):",
		Hint:  "memctl pref list"}, noun: "preferences"}
	if g.facts != nil {
		pinned := g.pinnedFacts()
		for _, f := range g.facts.Facts() {
			if f.Category == ledger.PreferencesCategory && !pinned[f.ID] {
				d.Lines = append(d.Lines, newLine(f.ID, factText(f, "team")))
			}
		}
	}
	if g.personal != nil {
		for _, f := range g.personal.Facts {
			d.Lines = append(d.Lines, newLine(f.ID, factText(f, "personal")))
		}
	}
	return d
}

// inProgressDraft: the actor's tasks in progress, by priority, with their
// latest note.
func (g *gathered) inProgressDraft(opts Options) draft {
	d := draft{Section: Section{Name: "in_progress", Title: fmt.Sprintf("In progress, assigned to %s:", oneLine(opts.Actor)),
		Hint: "memctl list --status in_progress --assignee " + strconv.Quote(opts.Actor)}, noun: "tasks in progress"}
	if g.summary == nil || opts.Actor == "" {
		return d
	}
	for _, t := range g.summary.InProgress {
		if t.Assignee != opts.Actor {
			continue
		}
		text := fmt.Sprintf("- %s [P%d] %s", t.ID, t.Priority, oneLine(t.Title))
		if t.Note != "" {
			text += "; latest note: " + t.Note
		}
		d.Lines = append(d.Lines, newLine(t.ID, text))
	}
	return d
}

// readyDraft: the first ready tasks in memctl ready's order.
func (g *gathered) readyDraft() draft {
	d := draft{Section: Section{Name: "ready", Title: "Ready tasks (memctl ready --claim):",
		Hint: "memctl ready"}, noun: "ready tasks"}
	if g.summary == nil {
		return d
	}
	for _, t := range g.summary.Ready {
		text := fmt.Sprintf("- %s [P%d] %s", t.ID, t.Priority, oneLine(t.Title))
		if t.Assignee != "" {
			text += " (assigned to " + oneLine(t.Assignee) + ")"
		}
		d.Lines = append(d.Lines, newLine(t.ID, text))
	}
	d.Omitted = g.summary.ReadyTotal - len(g.summary.Ready)
	return d
}

// rejectedDraft: the proposals rejected in the last RejectedWindow,
// newest first, with the reviewer's feedback.
func (g *gathered) rejectedDraft(opts Options) draft {
	d := draft{Section: Section{Name: "rejected", Title: "Rejected proposals (14 days), with feedback:",
		Hint: "memctl proposals --status rejected"}, noun: "rejected proposals"}
	since := opts.Now.Add(-RejectedWindow)
	var rejected []*proposal.Proposal
	for _, p := range g.rejected {
		if !p.ReviewedAt.Before(since) {
			rejected = append(rejected, p)
		}
	}
	slices.SortStableFunc(rejected, func(a, b *proposal.Proposal) int {
		if c := b.ReviewedAt.Compare(*a.ReviewedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for i, p := range rejected {
		if i == rejectedLimit {
			d.Omitted = len(rejected) - i
			break
		}
		what := p.Content
		if p.IsPlaybook() {
			what = "fix steps for error " + p.Signature
		}
		text := fmt.Sprintf("- %s [%s %s] %q; feedback: %s", p.ID, p.Action, p.Category, clip(oneLine(what), maxNote), clip(oneLine(p.Feedback), maxNote))
		d.Lines = append(d.Lines, newLine(p.ID, text))
	}
	return d
}

// proposalsDraft: one line, how many proposals wait for review.
func (g *gathered) proposalsDraft() draft {
	d := draft{Section: Section{Name: "proposals", Hint: "memctl review"}, noun: "lines"}
	if n := g.pending; n > 0 {
		verb := "wait"
		if n == 1 {
			verb = "waits"
		}
		d.Lines = append(d.Lines, newLine("", fmt.Sprintf("%s %s for a person's review (memctl review).", plural(n, "proposal"), verb)))
	}
	return d
}

// warningsDraft: the past failures in the files being changed (memctl
// warn): failed runs, newest first, then their playbooks.
func (g *gathered) warningsDraft(ws *config.Workspace) draft {
	d := draft{Section: Section{Name: "warnings", Title: "Past failures in the changed files:",
		Hint: "memctl warn"}, noun: "past failures"}
	if g.runs == nil || len(g.changed) == 0 {
		return d
	}
	l, err := g.runs.naming(g.changed)
	if err != nil {
		g.problem(partWarnings, "", err, "no warnings are shown")
		return d
	}
	res, err := runs.WarnListed(l, runs.WarnRequest{Files: g.changed, PlaybooksDir: ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir})
	if err != nil {
		g.problem(partWarnings, config.PlaybooksDir, err, "no warnings are shown")
		return d
	}
	for i, w := range res.Runs {
		if i == warningsLimit {
			d.Omitted += len(res.Runs) - i
			break
		}
		r := w.Entry.Record
		what := r.Digest.Intent
		switch {
		case len(w.Errors) > 0:
			what = "error " + w.Errors[0].Signature + ": " + w.Errors[0].Excerpt
			if w.Errors[0].Playbook != "" {
				what += " (playbook " + w.Errors[0].Playbook + ")"
			}
		case len(w.FailedTests) > 0:
			what = "failed: " + strings.Join(w.FailedTests, ", ")
		}
		text := fmt.Sprintf("- %s run [%s] in %s: %s", r.RunID, r.StatusOrUnknown(), strings.Join(w.Files, ", "), clip(oneLine(what), 2*maxNote))
		d.Lines = append(d.Lines, newLine(r.RunID, text))
	}
	for i, p := range res.Playbooks {
		if i == warningsLimit {
			d.Omitted += len(res.Playbooks) - i
			break
		}
		d.Lines = append(d.Lines, newLine(p.Signature, fmt.Sprintf("- %s playbook: %s (%s)", p.Signature, clip(oneLine(p.Title), maxNote), p.Path)))
	}
	return d
}
