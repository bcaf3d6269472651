package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// visible returns s with every character that could move the cursor,
// recolour or rewrite a terminal, or reorder the text around it written as
// a Go escape: C0 controls but newline and tab, DEL, C1 controls, the
// Unicode bidirectional overrides and isolates, and bytes that are not
// UTF-8. Text from a file memctl did not write (a pulled issues.jsonl, a
// proposal) passes through it before it reaches a person, so that what is
// shown is what is stored, byte for byte recoverable, and a hostile record
// cannot drive the terminal.
func visible(s string) string {
	if isPlain(s, true) {
		return s
	}
	return escapeControls(s, true)
}

// visibleLine is visible for one table cell or one line: newlines and tabs
// are escaped too, so a cell can neither break a row nor shift its columns.
func visibleLine(s string) string {
	if isPlain(s, false) {
		return s
	}
	return escapeControls(s, false)
}

// isPlain reports whether s needs no escaping.
func isPlain(s string, keepLayout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			if keepLayout && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
		if c >= 0x80 {
			return isPlainUnicode(s[i:])
		}
	}
	return true
}

func isPlainUnicode(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || hidden(r) {
			return false
		}
	}
	return true
}

// hidden reports the runes above ASCII that a terminal acts on or that
// reorder text: C1 controls and the bidirectional formatting characters.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func escapeControls(s string, keepLayout bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
