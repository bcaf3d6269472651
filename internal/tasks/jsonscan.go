package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// field is one top-level member of a JSON object: its key and its value's
// raw bytes, which point into the line they came from.
type field struct {
	key string
	raw []byte
}

// syntaxError is malformed JSON at a byte offset of a line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.off+1, e.msg)
}

// scanner validates JSON strictly (as encoding/json does) and splits the
// top-level object into fields without decoding the values. Reading only
// the fields a command needs is what makes loading 10,000 issues cheap.
type scanner struct {
	b       []byte
	i       int
	ws      bool // insignificant white space was seen
	esc     bool // the last string scanned had an escape sequence
	trusted bool // the input was validated before: only find the ends
}

// scanObject splits line into its top-level fields. compact reports that
// the line had no white space between tokens.
func scanObject(line []byte) (fields []field, compact bool, err error) {
	return scanObjectWith(scanner{b: line}, nil)
}

// scanTrusted is scanObject for a line validated before (a record read
// through the cache, which holds only validated lines of a file of the
// same size and time): strings are only searched for their ends.
func scanTrusted(line []byte) ([]field, bool, error) {
	return scanObjectWith(scanner{b: line, trusted: true}, nil)
}

// scanObjectWith scans an object's members into buf (reused when it has
// room; nil: a new slice).
func scanObjectWith(s scanner, buf []field) (fields []field, compact bool, err error) {
	s.skipWS()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		if s.i >= len(s.b) {
			return nil, false, &syntaxError{s.i, "empty line"}
		}
		if err := s.value(0); err != nil {
			return nil, false, err
		}
		return nil, false, &syntaxError{0, "not a JSON object"}
	}
	s.i++
	s.skipWS()
	fields = buf[:0]
	if fields == nil {
		fields = make([]field, 0, 20) // bd's issues have 10 to 19 fields
	}
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			s.skipWS()
			start := s.i
			if err := s.str(); err != nil {
				return nil, false, err
			}
			key, err := s.unquote(s.b[start:s.i])
			if err != nil {
				return nil, false, err
			}
			s.skipWS()
			if s.peek() != ':' {
				return nil, false, s.errf("expected ':' after object key")
			}
			s.i++
			s.skipWS()
			vstart := s.i
			if err := s.value(1); err != nil {
				return nil, false, err
			}
			fields = append(fields, field{key: key, raw: s.b[vstart:s.i]})
			s.skipWS()
			c := s.peek()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, false, s.errAt(s.i-1, "expected ',' or '}' after object value")
			}
		}
	}
	s.skipWS()
	if s.i != len(s.b) {
		return nil, false, s.errf("unexpected data after the object")
	}
	return fields, !s.ws, nil
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) errf(msg string) error { return s.errAt(s.i, msg) }

func (s *scanner) errAt(off int, msg string) error {
	if off >= len(s.b) {
		return &syntaxError{len(s.b), "unexpected end of line"}
	}
	return &syntaxError{off, msg}
}

func (s *scanner) skipWS() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.ws = true
			s.i++
		default:
			return
		}
	}
}

const maxDepth = 10000

func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.errf("nested too deeply")
	}
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case (c == '{' || c == '[') && s.trusted:
		return s.skipNested()
	case c == '{':
		s.i++
		s.skipWS()
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			s.skipWS()
			if err := s.str(); err != nil {
				return err
			}
			s.skipWS()
			if s.peek() != ':' {
				return s.errf("expected ':' after object key")
			}
			s.i++
			s.skipWS()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.skipWS()
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return s.errf("expected ',' or '}' after object value")
			}
		}
	case c == '[':
		s.i++
		s.skipWS()
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			s.skipWS()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.skipWS()
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				return s.errf("expected ',' or ']' after array element")
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.errf(fmt.Sprintf("invalid character %q looking for a value", c))
	}
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.errf("invalid literal")
	}
	s.i += len(lit)
	return nil
}

func (s *scanner) number() error {
	start := s.i
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
	default:
		return s.errAt(start, "invalid number")
	}
	if s.peek() == '.' {
		s.i++
		n := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == n {
			return s.errAt(start, "invalid number")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		n := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == n {
			return s.errAt(start, "invalid number")
		}
	}
	return nil
}

// strSpecial marks the bytes the string scanner must look at; runs of
// other bytes are skipped in a tight loop.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str scans a string; s.esc records whether it had escapes.
func (s *scanner) str() error {
	if s.peek() != '"' {
		return s.errf("expected a string")
	}
	s.i++
	s.esc = false
	if s.trusted {
		return s.skipStr()
	}
	for s.i < len(s.b) {
		for s.i < len(s.b) && !strSpecial[s.b[s.i]] {
			s.i++
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			s.esc = true
			s.i++
			switch s.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if len(s.b)-s.i < 5 {
					return s.errf("invalid \\u escape")
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !isHex(h) {
						return s.errf("invalid \\u escape")
					}
				}
				s.i += 5
			default:
				return s.errf("invalid escape in string")
			}
		case c < 0x20:
			return s.errf("control character in string")
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return s.errf("invalid UTF-8 in string")
			}
			s.i += size
		}
	}
	return s.errf("unterminated string")
}

// skipStr finds the end of a string already known to be valid.
func (s *scanner) skipStr() error {
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			s.i = len(s.b)
			return s.errf("unterminated string")
		}
		end := s.i + j
		bs := 0
		for k := end - 1; k >= s.i && s.b[k] == '\\'; k-- {
			bs++
		}
		if bs > 0 {
			s.esc = true
		}
		s.i = end + 1
		if bs%2 == 0 {
			return nil
		}
	}
}

// skipNested skips an object or array already known to be valid: only
// its brackets and strings need looking at.
func (s *scanner) skipNested() error {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			if err := s.skipStr(); err != nil {
				return err
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return nil
			}
		case ' ', '\t', '\n', '\r':
			s.ws = true
		}
		s.i++
	}
	return s.errf("unexpected end of line")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unquote decodes a scanned string token. Strings without escapes, the
// common case, are converted without a decoder.
func (s *scanner) unquote(tok []byte) (string, error) {
	if !s.esc {
		return bytesString(tok[1 : len(tok)-1]), nil
	}
	return unquoteJSON(tok)
}

// bytesString views b as a string without copying. Every byte slice the
// scanner hands out points into input that is never written after it is
// read (a file's content), so the view stays valid and immutable; this
// saves an allocation per key and per string value, most of the cost of
// loading 10,000 issues.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// unquoteJSON decodes a JSON string token.
func unquoteJSON(tok []byte) (string, error) {
	var v string
	if err := json.Unmarshal(tok, &v); err != nil {
		return "", err
	}
	return v, nil
}

// rawString decodes raw as a JSON string; ok is false if it is not one.
func rawString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		v, err := unquoteJSON(raw)
		return v, err == nil
	}
	return bytesString(body), true
}

// rawInt decodes raw as a JSON integer.
func rawInt(raw []byte) (int, bool) {
	n, err := strconv.Atoi(string(raw))
	return n, err == nil
}

// eachMember calls fn for every member of the JSON object obj, which the
// caller knows to be valid (it was scanned before), without allocating.
func eachMember(obj []byte, fn func(key string, raw []byte)) {
	s := scanner{b: obj, i: 1, trusted: true}
	for {
		s.skipWS()
		if s.peek() == '}' || s.i >= len(s.b) {
			return
		}
		start := s.i
		if s.str() != nil {
			return
		}
		key, err := s.unquote(s.b[start:s.i])
		if err != nil {
			return
		}
		s.skipWS()
		s.i++ // ':'
		s.skipWS()
		vstart := s.i
		if s.value(1) != nil {
			return
		}
		fn(key, s.b[vstart:s.i])
		s.skipWS()
		if s.peek() == ',' {
			s.i++
		}
	}
}

// eachElement calls fn for every element of the JSON array arr, which the
// caller knows to be valid, without allocating.
func eachElement(arr []byte, fn func(raw []byte)) {
	s := scanner{b: arr, i: 1, trusted: true}
	for {
		s.skipWS()
		if s.peek() == ']' || s.i >= len(s.b) {
			return
		}
		start := s.i
		if s.value(1) != nil {
			return
		}
		fn(s.b[start:s.i])
		s.skipWS()
		if s.peek() == ',' {
			s.i++
		}
	}
}
