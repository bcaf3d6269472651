package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/secrets"
)

// schemaVersion is the schema_version of every memctl JSON object
// (app.SchemaVersion).
const schemaVersion = app.SchemaVersion

// writeJSON prints v as one indented JSON document. HTML characters are
// not escaped: the output is read by programs, not browsers.
func writeJSON(w io.Writer, v any) error {
	// Issues, the bulk of most output, are written by hand: their values
	// are JSON already, and encoding/json would scan them all again.
	switch x := v.(type) {
	case []object:
		a := newJSONArray(w)
		for _, o := range x {
			a.add(o)
		}
		return a.close()
	case object:
		_, err := w.Write(append(appendIndentedObject(nil, x, 0), '\n'))
		return err
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeIndented(w, bytes.TrimSuffix(compact.Bytes(), []byte("\n")))
}

// jsonArray writes a JSON array of objects exactly as writeJSON writes a
// []object, one object at a time through a small buffer: a long list is
// never held whole, as objects or as text. Write errors are kept and
// returned by close.
type jsonArray struct {
	w   io.Writer
	buf []byte
	n   int
	err error
}

// jsonArrayFlush is the buffered size at which jsonArray writes.
const jsonArrayFlush = 60 << 10

func newJSONArray(w io.Writer) *jsonArray {
	return &jsonArray{w: w, buf: make([]byte, 0, jsonArrayFlush+8<<10)}
}

// add writes o as the array's next element.
func (a *jsonArray) add(o object) {
	if a.n == 0 {
		a.buf = append(a.buf, "[\n  "...)
	} else {
		a.buf = append(a.buf, ",\n  "...)
	}
	a.n++
	a.buf = appendIndentedObject(a.buf, o, 1)
	if len(a.buf) >= jsonArrayFlush {
		a.flush()
	}
}

// close ends the array and its line and reports the first write error.
func (a *jsonArray) close() error {
	if a.n == 0 {
		a.buf = append(a.buf, "[]\n"...)
	} else {
		a.buf = append(a.buf, "\n]\n"...)
	}
	a.flush()
	return a.err
}

func (a *jsonArray) flush() {
	if a.err == nil && len(a.buf) > 0 {
		_, a.err = a.w.Write(a.buf)
	}
	a.buf = a.buf[:0]
}

// appendIndentedObject appends o, which sits depth levels deep, as
// indentJSON would indent its compact JSON: the members are written
// indented in one pass, with no compact copy in between.
func appendIndentedObject(dst []byte, o object, depth int) []byte {
	if len(o) == 0 {
		return append(dst, '{', '}')
	}
	dst = append(dst, '{')
	for i, m := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendNewline(dst, depth+1)
		dst = app.AppendKey(dst, m.Key)
		dst = append(dst, ' ')
		if len(m.Raw) > 0 && m.Raw[0] != '{' && m.Raw[0] != '[' {
			// A string, number or literal: one token, no white space.
			dst = append(dst, m.Raw...)
		} else {
			dst = indentJSONAt(dst, m.Raw, depth+1)
		}
	}
	dst = appendNewline(dst, depth)
	return append(dst, '}')
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

// writeIndented writes the JSON src indented, with a final newline.
func writeIndented(w io.Writer, src []byte) error {
	out := indentJSON(make([]byte, 0, len(src)+len(src)/2), src)
	_, err := w.Write(append(out, '\n'))
	return err
}

// errorJSON is what stderr gets for a failed command run with --json.
type errorJSON struct {
	Error errorBodyJSON `json:"error"`
}

type errorBodyJSON struct {
	Code     string `json:"code"`
	ExitCode int    `json:"exit_code"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
	// Failed lists each id a batch command (close, reopen, update, show)
	// could not handle; absent for other errors.
	Failed []failedJSON `json:"failed,omitempty"`
	// Refused is set when the write gate refused text: which field, why
	// (a secret's rule id, or "control-character") and where.
	Refused *refusedJSON `json:"refused,omitempty"`
}

// failedJSON is one id of a batch that failed.
type failedJSON struct {
	ID       string `json:"id"`
	Code     string `json:"code"`
	ExitCode int    `json:"exit_code"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

type refusedJSON struct {
	Field  string `json:"field"`
	Rule   string `json:"rule"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Fingerprint is the secret finding's, for [[secrets.allow]]; a
	// control character has none.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// redactionJSON is one secret the write gate replaced in redact mode.
type redactionJSON struct {
	Field       string `json:"field"`
	Rule        string `json:"rule"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Fingerprint string `json:"fingerprint"`
}

func toRedactionsJSON(reds []secrets.Redaction) []redactionJSON {
	out := make([]redactionJSON, 0, len(reds))
	for _, r := range reds {
		out = append(out, redactionJSON{Field: r.Field, Rule: r.RuleID, Line: r.Line, Column: r.Column, Fingerprint: r.Fingerprint})
	}
	return out
}

// refusedDetail is the gate's refusal in err, if any, for the JSON error.
func refusedDetail(err error) *refusedJSON {
	var (
		secret *secrets.RefusedError
		text   *secrets.TextError
	)
	switch {
	case errors.As(err, &secret) && len(secret.Findings) > 0:
		f := secret.Findings[0]
		return &refusedJSON{Field: secret.Field, Rule: f.RuleID, Line: f.Line, Column: f.Column, Fingerprint: f.Fingerprint}
	case errors.As(err, &text):
		return &refusedJSON{Field: text.Field, Rule: "control-character", Line: text.Line, Column: text.Column}
	}
	return nil
}

// table renders rows for a person: aligned with a header on a terminal,
// tab-separated without a header when piped, so that cut and awk work.
// Columns are padded by display width (a CJK character takes two columns,
// a combining accent none), which text/tabwriter, counting runes, does not.
type table struct {
	env      *Env
	rows     [][]string
	head     []string
	clipLast bool
}

func newTable(env *Env, head ...string) *table {
	return &table{env: env, head: head}
}

// minClip is the least a clipped last column keeps, however narrow the
// terminal: the start of every title stays readable.
const minClip = 16

// clipToWidth makes the last column (a title, a fact) end at the
// terminal's right edge, marked with "…" where it is cut, when stdout is a
// terminal of known width.
func (t *table) clipToWidth() *table {
	t.clipLast = true
	return t
}

// row adds a row. Every cell goes through visibleLine when it is printed:
// cells hold text from files (titles, facts, names), and a tab or newline
// in one would break the columns, an escape sequence drive the terminal.
func (t *table) row(cells ...string) {
	t.rows = append(t.rows, cells)
}

func (t *table) flush() error {
	w := t.env.Out
	if !t.env.StdoutTTY {
		for _, r := range t.rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = visibleLine(c)
			}
			if _, err := fmt.Fprintln(w, strings.Join(cells, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	lines := make([][]string, 0, len(t.rows)+1)
	lines = append(lines, t.head)
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = visibleLine(c)
		}
		lines = append(lines, cells)
	}
	// Every cell but the last of its line is padded to its column's
	// widest, plus two spaces.
	var widths []int
	for _, l := range lines {
		for i, c := range l[:max(len(l)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for n, l := range lines {
		b.Reset()
		used := 0
		for i, c := range l {
			if i == len(l)-1 {
				if t.clipLast && t.env.Width > 0 && n > 0 {
					c = clipVisible(t.rows[n-1][i], max(t.env.Width-used, minClip))
				}
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			used += widths[i] + 2
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// clipVisible is visibleLine(s) in at most n display columns, marking the
// cut with "…". It cuts between characters of s, so that neither a
// character nor an escape visibleLine writes for one is split, and a
// zero-width character (a combining accent) stays with the one before it.
func clipVisible(s string, n int) string {
	full := visibleLine(s)
	if ansi.StringWidth(full) <= n {
		return full
	}
	var b strings.Builder
	used := 0
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		piece := visibleLine(s[i : i+size])
		pw := ansi.StringWidth(piece)
		if used+pw > n-1 {
			break
		}
		b.WriteString(piece)
		used += pw
		i += size
	}
	return b.String() + "…"
}

// oneLine folds text to one line for a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}
