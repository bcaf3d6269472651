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

// separatorTokens is the blank line that ends every section's block.
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

// cost is what the section costs with its first keep lines and the rest
// (plus those already counted in Omitted) left out.
func (d *draft) cost(keep int) int {
	n := 0
	for _, l := range d.Lines[:keep] {
		n += l.Tokens
	}
	return d.costWith(keep, n)
}

// costWith is cost for keep lines that cost lines tokens.
func (d *draft) costWith(keep, lines int) int {
	n := separatorTokens + lines
	if d.Title != "" {
		n += lineTokens(d.Title)
	}
	if omitted := d.Omitted + len(d.Lines) - keep; omitted > 0 {
		n += lineTokens(d.hintLine(omitted))
	}
	return n
}

// cut fits the drafts into budget tokens and returns the sections.
//
// The rule: every section gets at least its summary (its title and the
// hint line counting all its lines as left out), reserved before any
// section is filled; when even the summaries do not fit, sections are
// dropped whole from the least important end (Dropped, not printed).
// Then the sections are filled in order of importance: each keeps the
// longest run of its lines, in its own order of importance, that fits
// in what is left after the later sections' summaries, and the lines
// after the first that does not fit are left out and counted (Omitted),
// with the hint line saying how to see them. A section's lines are never
// skipped to let a shorter later line in: what is kept is always the most
// important part.
func cut(drafts []draft, budget int) []Section {
	mins := make([]int, len(drafts))
	reserved := 0
	for i := range drafts {
		mins[i] = drafts[i].cost(0)
		reserved += mins[i]
	}
	live := len(drafts)
	for live > 0 && reserved > budget {
		live--
		reserved -= mins[live]
	}
	out := make([]Section, len(drafts))
	used := 0
	for i := range drafts {
		d := &drafts[i]
		if i >= live {
			s := d.Section
			s.Omitted += len(s.Lines)
			s.Lines, s.Tokens, s.Dropped = []Line{}, 0, true
			out[i] = s
			continue
		}
		reserved -= mins[i]
		avail := budget - used - reserved
		// The longest prefix that fits: lines are added while they fit
		// (with the hint line the rest would need).
		keep, lines := 0, 0
		if d.cost(len(d.Lines)) > avail {
			for keep < len(d.Lines) && d.costWith(keep+1, lines+d.Lines[keep].Tokens) <= avail {
				lines += d.Lines[keep].Tokens
				keep++
			}
		} else {
			keep = len(d.Lines)
		}
		s := d.Section
		s.Tokens = d.cost(keep)
		s.Omitted += len(s.Lines) - keep
		s.Lines = slices.Clone(s.Lines[:keep])
		if s.Omitted > 0 {
			s.more = d.hintLine(s.Omitted)
		}
		if d.display != nil {
			slices.SortStableFunc(s.Lines, d.display)
		}
		used += s.Tokens
		out[i] = s
	}
	return out
}
