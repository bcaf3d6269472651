package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/secrets"
)

// schemaVersion is the schema_version of every memctl JSON object (the
// task-graph commands print bd's shapes, which have none). A rename,
// removal or change of meaning in any shape bumps it, with a CHANGELOG
// entry; adding a field does not.
const schemaVersion = 1

// writeJSON prints v as one indented JSON document. HTML characters are
// not escaped: the output is read by programs, not browsers.
func writeJSON(w io.Writer, v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
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
		return &refusedJSON{Field: secret.Field, Rule: f.RuleID, Line: f.Line, Column: f.Column}
	case errors.As(err, &text):
		return &refusedJSON{Field: text.Field, Rule: "control-character", Line: text.Line, Column: text.Column}
	}
	return nil
}

// table renders rows for a person: aligned with a header on a terminal,
// tab-separated without a header when piped, so that cut and awk work.
type table struct {
	env  *Env
	rows [][]string
	head []string
}

func newTable(env *Env, head ...string) *table {
	return &table{env: env, head: head}
}

// row adds a row. Every cell goes through visibleLine: cells hold text
// from files (titles, facts, names), and a tab or newline in one would
// break the columns, an escape sequence drive the terminal.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = visibleLine(c)
	}
	t.rows = append(t.rows, cells)
}

func (t *table) flush() error {
	if !t.env.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.env.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(t.env.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.head, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
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
