package secrets

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Field is one named piece of text a writer is about to store: a task's
// title or description, a comment, a fact. Name is what the person or
// agent knows it by (the JSON key or the flag).
type Field struct {
	Name string
	Text string
	// OneLine fields (titles, assignees, labels) may hold no newline or
	// tab either.
	OneLine bool
}

// RefusedError is text memctl will not write because it holds what looks
// like a credential. It names the field, the rule and the position, never
// the secret.
type RefusedError struct {
	Field    string
	Findings []Finding
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("field %q contains what looks like a secret: %s", e.Field, Describe(e.Findings))
}

// TextError is text memctl will not write because of a character that
// would act on a terminal or reorder the text around it (control
// characters, ANSI escapes, bidirectional overrides), bytes that are not
// UTF-8, or, in a one-line field, a newline or tab.
type TextError struct {
	Field        string
	Line, Column int // 1-based; Column in bytes
	What         string
}

func (e *TextError) Error() string {
	return fmt.Sprintf("field %q has %s at line %d, column %d", e.Field, e.What, e.Line, e.Column)
}

// Check is the write gate with the default policy (Policy{}.Gate: refuse,
// no allow-list), for text no workspace's [secrets] table governs. It
// returns a *TextError for the first field with a character a terminal
// would act on, else a *RefusedError for the first field holding a
// secret, else nil. Carriage returns are allowed only before a newline,
// so text pasted with CRLF line ends passes. Every writer of a workspace
// (task create, update, comment and close, propose, review, playbooks,
// run records, preferences) calls its Policy's Gate or Pass instead.
func Check(fields ...Field) error {
	_, _, err := Policy{}.Gate(fields...)
	return err
}

// MayAct reports whether r is a character CheckText may refuse in text
// that is not one line: a control character other than newline and tab
// (a carriage return depends on what follows), or a bidirectional
// formatting character. It is a quick test for readers that decode text
// only when it may hold one.
func MayAct(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	}
	return isBidi(r)
}

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// CheckText is the first half of Check: a *TextError for the first
// character of f that may not be stored (one a terminal would act on, or a
// newline or tab in a one-line field), else nil. It does not look for
// secrets.
func CheckText(f Field) error {
	s := f.Text
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		what := ""
		switch {
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("byte 0x%02x, which is not UTF-8", s[i])
		case r == '\n' && f.OneLine:
			what = "a newline (it must be one line)"
		case r == '\t' && f.OneLine:
			what = "a tab (it must be one line)"
		case r == '\n' || r == '\t':
		case r == '\r':
			if f.OneLine || !strings.HasPrefix(s[i+1:], "\n") {
				what = "a carriage return (\\r)"
			}
		case r == 0x1b:
			what = "an escape character (\\x1b, the start of a terminal escape sequence)"
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			what = fmt.Sprintf("the control character U+%04X", r)
		case isBidi(r):
			what = fmt.Sprintf("the bidirectional formatting character U+%04X", r)
		}
		if what != "" {
			line, col := position(s, i)
			return &TextError{Field: f.Name, Line: line, Column: col, What: what}
		}
		i += size
	}
	return nil
}

// Redact replaces every secret in text with [REDACTED:<rule id>] and
// returns the result and what it replaced (positions in the original
// text). It is Policy{}.RedactText: no allow-list.
func Redact(text string) (string, []Finding, error) { return Policy{}.RedactText(text) }

// replace writes text with the secret of each finding replaced by
// [REDACTED:<rule id>], and returns what it replaced, in order, at the
// secret's position. Only the secret goes (the rule's secret group: in
// "export TOKEN=ghp_…", the token), not the rest of the match. Secrets
// that overlap (two rules matching the same token, or a specific rule's
// secret inside a generic one's) are replaced by one marker over their
// union, named after the first; a finding without a secret (an empty
// group) replaces its whole match.
func replace(text string, found []finding) (string, []Finding) {
	type span struct {
		start, end int
		f          *finding
	}
	spans := make([]span, 0, len(found))
	for i := range found {
		f := &found[i]
		start, end := f.secretAt, f.secretAt+len(f.secret)
		if f.secret == "" {
			start, end = f.offset, f.matchEnd
		}
		spans = append(spans, span{start, end, f})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	b.Grow(len(text))
	out := make([]Finding, 0, len(spans))
	at := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		end := s.end
		j := i + 1
		for ; j < len(spans) && spans[j].start < end; j++ {
			end = max(end, spans[j].end)
		}
		b.WriteString(text[at:s.start])
		b.WriteString("[REDACTED:" + s.f.rule.id + "]")
		line, col := position(text, s.start)
		out = append(out, Finding{RuleID: s.f.rule.id, Line: line, Column: col, Fingerprint: Fingerprint(s.f.rule.id, s.f.secret)})
		at, i = end, j
	}
	b.WriteString(text[at:])
	return b.String(), out
}
