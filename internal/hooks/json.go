package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A settings file is read into an ordered tree, so that writing it back
// keeps every key of every other tool where it was: values are *object,
// []any, string, json.Number, bool or nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces k's value in place, or appends k.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// setFirst is set, but a new key goes first.
func (o *object) setFirst(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append([]string{k}, o.keys...)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// syntaxError is a settings file that is not JSON, with the 1-based line
// and column where reading stopped.
type syntaxError struct {
	Format       string // JSON, TOML
	Line, Column int
	Msg          string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("not valid %s: line %d, column %d: %s", e.Format, e.Line, e.Column, e.Msg)
}

// parseObject reads a JSON object, keeping the order of its keys. Empty
// input (only white space) is an empty object. A key given twice keeps
// its first place and its last value, as encoding/json reads it.
func parseObject(data []byte) (*object, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	if !utf8.Valid(data) {
		return nil, &syntaxError{Format: "JSON", Line: 1, Column: 1, Msg: "not UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("more after the end of the top-level value")
		}
	}
	if err != nil {
		return nil, positioned(data, dec.InputOffset(), err)
	}
	o, ok := v.(*object)
	if !ok {
		return nil, &syntaxError{Format: "JSON", Line: 1, Column: 1, Msg: "not a JSON object"}
	}
	return o, nil
}

func positioned(data []byte, off int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		off, err = int64(len(data)), errors.New("unexpected end of file")
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return &syntaxError{Format: "JSON", Line: line, Column: col, Msg: msg}
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %q", t)
	default:
		return t, nil // string, json.Number, bool, nil
	}
}

// encode writes v as JSON indented by two spaces, with a final newline.
func encode(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string) {
	inner := indent + "  "
	switch v := v.(type) {
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, v.vals[k], inner)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(inner)
			writeValue(b, x, inner)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(string(v))
	case int:
		fmt.Fprintf(b, "%d", v)
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("hooks: cannot encode %T", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte{'\n'}))
}

// equal reports whether a and b are the same JSON value (key order aside;
// numbers by their text, after normalising ints).
func equal(a, b any) bool {
	switch a := a.(type) {
	case *object:
		bo, ok := b.(*object)
		if !ok || len(a.keys) != len(bo.keys) {
			return false
		}
		for _, k := range a.keys {
			bv, ok := bo.vals[k]
			if !ok || !equal(a.vals[k], bv) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case json.Number, int:
		return numText(a) != "" && numText(a) == numText(b)
	default:
		return a == b
	}
}

func numText(v any) string {
	switch v := v.(type) {
	case json.Number:
		return string(v)
	case int:
		return fmt.Sprint(v)
	}
	return ""
}
