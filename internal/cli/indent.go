package cli

// indentJSON appends compact JSON (as encoding/json writes it: no white
// space outside strings) to dst, indented by two spaces per level exactly
// as json.Indent(dst, src, "", "  ") would. It is a single pass that only
// tracks strings and escapes, several times faster than json.Indent's
// validating scanner, which was a large part of listing 1,000 proposals.
func indentJSON(dst, src []byte) []byte { return indentJSONAt(dst, src, 0) }

// indentJSONAt is indentJSON for a value that sits depth levels deep: its
// inner lines are indented as they would be in the whole document.
func indentJSONAt(dst, src []byte, depth int) []byte {
	inString, escaped := false, false
	newline := func() { dst = appendNewline(dst, depth) }
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString && !escaped {
			// Copy the run of plain string bytes in one go.
			j := i
			for j < len(src) && src[j] != '"' && src[j] != '\\' {
				j++
			}
			dst = append(dst, src[i:j]...)
			if j == len(src) {
				break
			}
			i, c = j, src[j]
		}
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			// Insignificant: a value copied from a file as it was written.
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			dst = append(dst, c)
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
				j++
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				dst = append(dst, src[j])
				i = j
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
