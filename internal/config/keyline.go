package config

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
)

// withKeyLine fills in the line of a validation *Error from the TOML text:
// the decoder reports no positions for values that decode fine but are out
// of range, and "file:line: key" is what lets a person or an agent go
// straight to the mistake.
func withKeyLine(err error, data []byte) error {
	var e *Error
	if errors.As(err, &e) && e.Line == 0 && e.Key != "" {
		e.Line = keyLine(data, e.Key)
	}
	return err
}

// keyLine returns the 1-based line that sets the dotted key in TOML data,
// or 0 when no line does (a default, or a key spelt in a way this scanner
// does not follow). Table headers and dotted keys are followed; a key set
// inside an inline table gives the line of that table. Keys match in any
// case, as the decoder matches them to the settings ([Facts] sets facts).
func keyLine(data []byte, key string) int {
	table, best := "", 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#':
			continue
		case strings.HasPrefix(line, "["):
			h := strings.Trim(line, "[]")
			if i := strings.IndexByte(h, '#'); i >= 0 {
				h = strings.Trim(strings.TrimSpace(h[:i]), "[]")
			}
			table = normKey(h)
			continue
		}
		lhs, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		full := normKey(lhs)
		if table != "" {
			full = table + "." + full
		}
		switch {
		case strings.EqualFold(full, key):
			return n
		case best == 0 && len(key) > len(full) && key[len(full)] == '.' && strings.EqualFold(key[:len(full)], full):
			best = n // an inline table holding the key
		}
	}
	return best
}

// normKey writes a TOML key without spaces around its dots and without
// quotes around its parts.
func normKey(k string) string {
	parts := strings.Split(strings.TrimSpace(k), ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
