package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/secrets"
)

// visible returns s with every character that could move the cursor,
// recolour or rewrite a terminal, or reorder the text around it written as
// a Go escape: C0 controls but newline and tab, DEL, C1 controls, the
// Unicode bidirectional overrides and isolates, and bytes that are not
// UTF-8. Text from a file memctl did not write (a pulled issues.jsonl, a
// proposal) passes through it before it reaches a person, so that what is
// shown is what is stored, byte for byte recoverable, and a hostile record
// cannot drive the terminal.
func visible(s string) string { return escapeControls(s, true) }

// visibleLine is visible for one table cell or one line: newlines and tabs
// are escaped too, so a cell can neither break a row nor shift its columns.
func visibleLine(s string) string { return escapeControls(s, false) }

// needsEscape is the one rule of both: r (utf8.RuneError of size 1 for a
// byte that is not UTF-8) must be written as an escape. The characters a
// terminal acts on are the ones the write gate refuses (secrets.MayAct).
func needsEscape(r rune, size int, keepLayout bool) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r == '\n' || r == '\t':
		return !keepLayout
	}
	return secrets.MayAct(r)
}

func escapeControls(s string, keepLayout bool) string {
	// Most text needs nothing: find the first rune that does, if any,
	// before building a copy.
	i := 0
	for i < len(s) {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size, keepLayout) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !needsEscape(r, size, keepLayout):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}
