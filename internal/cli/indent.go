package cli

// indentJSON appends compact JSON (as encoding/json writes it: no white
// space outside strings) to dst, indented by two spaces per level exactly
// as json.Indent(dst, src, "", "  ") would. It is a single pass that only
// tracks strings and escapes, several times faster than json.Indent's
// validating scanner, which was a large part of listing 1,000 proposals.
func indentJSON(dst, src []byte) []byte {
	depth := 0
	inString, escaped := false, false
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
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
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
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
