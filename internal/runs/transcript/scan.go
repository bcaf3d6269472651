package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small structural JSON scanner for the hot path: Claude Code lines are
// mostly tool results (files read, command output, the same again in
// toolUseResult) that flush never looks at. encoding/json validates and
// walks all of it, twice with nested RawMessages; the scanner skips a
// string with one IndexByte per quote and decodes only the values asked
// for. It checks structure (balanced brackets, closed strings, one value
// per line), which is what tells a cut-off or garbage line; the values
// used are decoded by encoding/json.

var errSyntax = errors.New("not JSON: malformed or cut off")

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string whose opening quote is at
// d[i], or -1.
func skipString(d []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return -1
		}
		k := i + j
		bs := 0
		for p := k - 1; p >= i && d[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return k + 1
		}
		i = k + 1
	}
}

// skipValue returns the index after the value that starts at d[i] (after
// any space), or -1 if there is none or it is malformed.
func skipValue(d []byte, i int) int {
	i = skipSpace(d, i)
	if i >= len(d) {
		return -1
	}
	switch c := d[i]; {
	case c == '"':
		return skipString(d, i)
	case c == '{' || c == '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				if i = skipString(d, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // a number, true, false or null
		j := i
		for j < len(d) && (d[j] == '-' || d[j] == '+' || d[j] == '.' || d[j] >= '0' && d[j] <= '9' || d[j] >= 'a' && d[j] <= 'z' || d[j] >= 'A' && d[j] <= 'Z') {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// fields calls f with each member of the object d (keys still quoted, as
// in the JSON); it stops early if f returns false. It fails on anything
// but one object.
func fields(d []byte, f func(key, val []byte) bool) error {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return errSyntax
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return trailing(d, i+1)
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return errSyntax
		}
		k := skipString(d, i)
		if k < 0 {
			return errSyntax
		}
		key := d[i:k]
		i = skipSpace(d, k)
		if i >= len(d) || d[i] != ':' {
			return errSyntax
		}
		vs := skipSpace(d, i+1)
		ve := skipValue(d, vs)
		if ve < 0 {
			return errSyntax
		}
		if f != nil && !f(key, d[vs:ve]) {
			f = nil // keep checking the structure
		}
		i = skipSpace(d, ve)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i < len(d) && d[i] == '}' {
			return trailing(d, i+1)
		}
		return errSyntax
	}
}

// elements calls f with each element of the array d.
func elements(d []byte, f func(val []byte)) error {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '[' {
		return errSyntax
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return trailing(d, i+1)
	}
	for {
		ve := skipValue(d, i)
		if ve < 0 {
			return errSyntax
		}
		f(d[i:ve])
		i = skipSpace(d, ve)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i < len(d) && d[i] == ']' {
			return trailing(d, i+1)
		}
		return errSyntax
	}
}

func trailing(d []byte, i int) error {
	if skipSpace(d, i) != len(d) {
		return errSyntax
	}
	return nil
}

// str decodes a JSON string value; anything else is "".
func str(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	body := v[1 : len(v)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 && utf8.Valid(body) {
		return string(body)
	}
	if i >= 0 {
		if s, ok := unquote(body, i); ok && utf8.ValidString(s) {
			return s
		}
	}
	// Invalid UTF-8 (encoding/json makes it U+FFFD) or an odd escape.
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// unquote decodes the escapes of a JSON string's body, the first at i. It
// gives up (false) on what it does not know; str then asks encoding/json.
func unquote(body []byte, i int) (string, bool) {
	out := make([]byte, 0, len(body))
	for {
		out = append(out, body[:i]...)
		if i+1 >= len(body) {
			return "", false
		}
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
			body = body[i+2:]
		case 'n':
			out = append(out, '\n')
			body = body[i+2:]
		case 't':
			out = append(out, '\t')
			body = body[i+2:]
		case 'r':
			out = append(out, '\r')
			body = body[i+2:]
		case 'b':
			out = append(out, '\b')
			body = body[i+2:]
		case 'f':
			out = append(out, '\f')
			body = body[i+2:]
		case 'u':
			r, n := unicodeEscape(body[i:])
			if n == 0 {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			body = body[i+n:]
		default:
			return "", false
		}
		if i = bytes.IndexByte(body, '\\'); i < 0 {
			return string(append(out, body...)), true
		}
	}
}

// unicodeEscape decodes \uXXXX at the start of b, or a surrogate pair of
// two; n is the bytes used, 0 if malformed. A lone surrogate is U+FFFD, as
// encoding/json makes it.
func unicodeEscape(b []byte) (r rune, n int) {
	hex4 := func(b []byte) rune {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return -1
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(v)
	}
	r = hex4(b)
	if r < 0 {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2 := hex4(b[6:]); r2 >= 0 {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

func isTrue(v []byte) bool { return string(v) == "true" }
