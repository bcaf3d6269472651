package prime

import (
	"fmt"
	"slices"
	"strings"
)

// Tokens is prime's token estimate of s: one token per 4 bytes, rounded
// up. Tokenizers differ by model; for English prose and code, 4 bytes
// per token is the usual rule of thumb, slightly generous for ASCII and
// pessimistic for text outside ASCII (which takes more bytes per
// character), so a pack of n tokens is never more than 4n bytes, and
// so never more than 4n characters.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// lineTokens is what a printed line costs: its text and its newline.
func lineTokens(text string) int { return (len(text) + 1 + 3) / 4 }

// TextTokens is what text costs by the rule the budget counts by: each
// line (its bytes and its newline, rounded up to a token per 4 bytes),
// a blank line costing 1. A pack's Tokens is the TextTokens of its Text.
func TextTokens(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		n += lineTokens(strings.TrimSuffix(line, "\n"))
	}
	return n
}

// separatorTokens is the blank line between two blocks of the text.
const separatorTokens = 1

// draft is a section before the cut: its lines in the order of their
// importance, and the noun the hint line counts them by.
type draft struct {
	Section
	noun string // "facts", "ready tasks"…, for the hint line
	// display, when set, orders the kept lines for printing (the facts are
	// chosen by importance and printed in ledger order).
	display func(a, b Line) int
}

// hintLine is the line that says how many lines were left out and how to
// see them.
func (d *draft) hintLine(omitted int) string {
	noun := d.noun
	if omitted == 1 { // "lines of it", "tasks in progress", "ready tasks"
		if first, rest, ok := strings.Cut(noun, " "); ok && (first == "lines" || first == "tasks") {
			noun = strings.TrimSuffix(first, "s") + " " + rest
		} else {
			noun = strings.TrimSuffix(noun, "s")
		}
	}
	if d.Hint == "" {
		return fmt.Sprintf("- %d more %s left out", omitted, noun)
	}
	return fmt.Sprintf("- %d more %s left out: %s", omitted, noun, d.Hint)
}

// body is what the section's block costs with its first keep lines (which
// cost lines tokens) and the rest, with those already counted in
// Omitted, left out: its title, the lines and the hint line. The blank
// line before the block is not counted here.
func (d *draft) body(keep, lines int) int {
	n := lines
	if d.Title != "" {
		n += lineTokens(d.Title)
	}
	if omitted := d.Omitted + len(d.Lines) - keep; omitted > 0 {
		n += lineTokens(d.hintLine(omitted))
	}
	return n
}

// size is how many lines the section has in all, printed or not.
func (d *draft) size() int { return len(d.Lines) + d.Omitted }

// label is the section's name as the left-out line says it.
func label(name string) string { return strings.ReplaceAll(name, "_", " ") }

// leftOutLine names the sections the budget left out whole, with how many
// lines each has, and the budget that shows the whole pack.
func leftOutLine(left []draft, full int) string {
	var b strings.Builder
	b.WriteString("- left out for the budget: ")
	for i := range left {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d)", label(left[i].Name), left[i].size())
	}
	fmt.Fprintf(&b, ": memctl prime --budget-tokens %d", SuggestedBudget(full))
	return b.String()
}

// SuggestedBudget is a round budget that holds a pack of full tokens: full
// rounded up to a hundred.
func SuggestedBudget(full int) int { return max(100, (full+99)/100*100) }

// cutResult is the pack's sections after the cut and its closing block.
type cutResult struct {
	sections []Section
	// leftOut is the line naming the sections left out whole; "" when
	// none was.
	leftOut string
	// notShown is the line naming the parts that could not be read, when
	// it fit; "" otherwise.
	notShown string
	// closing is what the closing block costs, its blank line included.
	closing int
	// full is what the whole pack would cost.
	full int
}

// cut fits the drafts, in order of importance, into budget tokens, with
// notShown (a line naming the parts that could not be read, "" for none)
// kept whenever anything is printed.
//
// The rule is strict importance: the sections are filled in order, each
// with its lines in its own order of importance, while they fit; the
// first line that does not fit ends the pack. Its section keeps the lines
// before it and a hint line counting the rest with the command that shows
// them (- 12 more facts left out: memctl facts); every later section is
// left out whole (Dropped) and named, with its number of lines, in one
// line at the end with the budget that shows everything (- left out for
// the budget: ready (12): memctl prime --budget-tokens 2400). A shorter
// line after the first that does not fit is never let in, so a section is
// never cut for a less important one, what is kept of a section is always
// its most important part, and a larger budget never shows fewer lines of
// any section. A section's first line is kept only with its title and hint
// line; one that cannot be is named in the line at the end instead (so a
// one-line section is never cut to a hint of the same size). When not
// even the closing lines fit, nothing is printed.
//
// Blocks (a section's title, lines and hint line; the closing lines) are
// separated by a blank line, which costs a token; the pack's cost is
// exactly TextTokens of its text.
func cut(drafts []draft, budget int, notShown string) cutResult {
	// pre[i][k] is what the first k lines of section i cost.
	pre := make([][]int, len(drafts))
	full := 0
	for i := range drafts {
		d := &drafts[i]
		pre[i] = make([]int, len(d.Lines)+1)
		for k, l := range d.Lines {
			pre[i][k+1] = pre[i][k] + l.Tokens
		}
		if i > 0 {
			full += separatorTokens
		}
		full += d.body(len(d.Lines), pre[i][len(d.Lines)])
	}
	// costAt is what the pack costs with sections before i whole, section
	// i keeping its first k lines (none: left out whole) and the sections
	// after it left out whole; i == len(drafts) is the whole pack. It
	// returns the left-out line too.
	costAt := func(i, k int) (int, string) {
		n, blocks := 0, 0
		for j := range min(i, len(drafts)) {
			n += drafts[j].body(len(drafts[j].Lines), pre[j][len(drafts[j].Lines)])
			blocks++
		}
		first := i // the first section left out whole
		if i < len(drafts) && k > 0 {
			n += drafts[i].body(k, pre[i][k])
			blocks++
			first++
		}
		leftOut := ""
		closing := 0
		if first < len(drafts) {
			leftOut = leftOutLine(drafts[first:], full)
			closing += lineTokens(leftOut)
		}
		if notShown != "" {
			closing += lineTokens(notShown)
		}
		if closing > 0 {
			n += closing
			blocks++
		}
		if blocks > 1 {
			n += (blocks - 1) * separatorTokens
		}
		return n, leftOut
	}
	// The states in order are (0,0), (0,1) … (1,0) … (len,0); the pack
	// is the last that fits (the cost is not monotonic along them: a
	// section printed whole drops its hint line and its name in the
	// left-out line). A larger budget fits every state a smaller one did,
	// so it never stops earlier.
	stopI, stopK, fits := 0, 0, false
	for i := len(drafts); i >= 0 && !fits; i-- {
		top := 0
		if i < len(drafts) {
			top = len(drafts[i].Lines) - 1 // k == len is state (i+1, 0)
		}
		for k := top; k >= 0; k-- {
			if c, _ := costAt(i, k); c <= budget {
				stopI, stopK, fits = i, k, true
				break
			}
		}
	}
	res := cutResult{sections: make([]Section, len(drafts)), full: full}
	printed := 0
	for i := range drafts {
		d := &drafts[i]
		s := d.Section
		keep := len(d.Lines)
		switch {
		case !fits || i > stopI || (i == stopI && stopK == 0 && stopI < len(drafts)):
			s.Omitted += len(s.Lines)
			s.Lines, s.Tokens, s.Dropped = []Line{}, 0, true
			res.sections[i] = s
			continue
		case i == stopI:
			keep = stopK
		}
		s.Tokens = d.body(keep, pre[i][keep])
		if printed > 0 {
			s.Tokens += separatorTokens
		}
		printed++
		s.Omitted += len(s.Lines) - keep
		s.Lines = slices.Clone(s.Lines[:keep])
		if s.Omitted > 0 {
			s.more = d.hintLine(s.Omitted)
		}
		if d.display != nil {
			slices.SortStableFunc(s.Lines, d.display)
		}
		res.sections[i] = s
	}
	if !fits {
		return res
	}
	_, res.leftOut = costAt(stopI, stopK)
	res.notShown = notShown
	if res.leftOut != "" {
		res.closing += lineTokens(res.leftOut)
	}
	if notShown != "" {
		res.closing += lineTokens(notShown)
	}
	if res.closing > 0 && printed > 0 {
		res.closing += separatorTokens
	}
	return res
}
