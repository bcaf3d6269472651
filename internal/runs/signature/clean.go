package signature

import (
	"strings"
	"unicode/utf8"
)

// clean returns text as plain lines: terminal escape sequences (colours,
// cursor moves, titles) removed, CRLF and lone carriage returns (a
// progress line redrawn) turned into newlines, other control characters and
// bidirectional formatting characters removed, and bytes that are not
// UTF-8 replaced by U+FFFD. The normalised text may be stored and shown,
// so it holds nothing a terminal would act on.
func clean(text string) string {
	i := 0
	for i < len(text) {
		c := text[i]
		if c >= 0x80 || c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			break
		}
		i++
	}
	if i == len(text) {
		return text // printable ASCII: the common case, no copy
	}
	var b strings.Builder
	b.Grow(len(text))
	b.WriteString(text[:i])
	for i < len(text) {
		c := text[i]
		switch {
		case c == 0x1b:
			i = skipEscape(text, i)
			continue
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			b.WriteByte('\n')
			i++
			continue
		case c < 0x80:
			if c >= 0x20 && c != 0x7f || c == '\n' || c == '\t' {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case dropped(r):
		default:
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	return b.String()
}

// dropped reports whether clean removes the character r (not ASCII): a C1
// control, a bidirectional formatting character or a byte order mark. With
// the ASCII controls clean removes, these are the characters the write gate
// refuses (secrets.MayAct; a test keeps the two in step).
func dropped(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c || r == 0xfeff
}

// skipEscape returns the index after the escape sequence that starts at
// text[i] (ESC): a CSI sequence (ESC [ params final, colours and cursor
// moves), an OSC or other string sequence (ESC ] … BEL or ESC \, titles
// and hyperlinks), or ESC and one more character.
func skipEscape(text string, i int) int {
	i++ // ESC
	if i >= len(text) {
		return i
	}
	switch text[i] {
	case '[':
		for i++; i < len(text); i++ {
			c := text[i]
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c == '\n' || c == 0x1b {
				return i // a broken sequence ends at the line
			}
		}
		return i
	case ']', 'P', '_', '^', 'X':
		for i++; i < len(text); i++ {
			switch text[i] {
			case 0x07:
				return i + 1
			case 0x1b:
				if i+1 < len(text) && text[i+1] == '\\' {
					return i + 2
				}
				return i
			case '\n':
				return i
			}
		}
		return i
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	return i + size
}
