package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
)

// The secret and control-character rules apply the write gate's scanner
// (internal/secrets) to what people edit by hand, where the gate never
// ran: facts files, .beads/issues.jsonl and proposal files.

const secretHint = "remove it from the file and rotate the credential (it may be in git history too: memctl check --secrets --history); " +
	"if it is not a secret, add its fingerprint to [[secrets.allow]] in .ledger/config.toml, or gitleaks:allow to the line"

// secretFindings turns the scanner's findings in file into check
// findings. They name the rule and the column, never the secret.
func secretFindings(file string, found []secrets.Finding) []Finding {
	out := make([]Finding, 0, len(found))
	for _, s := range found {
		out = append(out, Finding{Severity: Error, Rule: RuleSecret, File: file, Line: s.Line, Secret: s,
			Message: fmt.Sprintf("what looks like a secret (%s) at column %d (fingerprint %s)", s.RuleID, s.Column, s.Fingerprint), Hint: secretHint})
	}
	return out
}

const controlHint = "delete the character: a terminal acts on it (escape sequences) or shows the text in another order " +
	"(bidirectional overrides); memctl escapes it when it prints, agents reading the file do not"

// checkFactsText scans a facts file for secrets and control characters.
func checkFactsText(f *ledger.File) ([]Finding, error) {
	return checkText(f.Path, f.Source(), func(n int) string { return factAt(f, n) })
}

// checkText scans a Markdown file memctl reads (facts, playbooks) for
// secrets and control characters; what names the part of the file line n
// belongs to.
func checkText(file string, src []byte, what func(n int) string) ([]Finding, error) {
	found, err := secrets.Scan(string(src))
	if err != nil {
		return nil, err
	}
	out := secretFindings(file, found)
	n := 0
	for rest := src; len(rest) > 0; {
		n++
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		var te *secrets.TextError
		if err := secrets.CheckText(secrets.Field{Text: string(line)}); errors.As(err, &te) {
			out = append(out, Finding{Severity: Warning, Rule: RuleControlCharacter, File: file, Line: n,
				Message: fmt.Sprintf("%s has %s at column %d", what(n), te.What, te.Column), Hint: controlHint})
		}
	}
	return out, nil
}

// factAt names what line n of f belongs to.
func factAt(f *ledger.File, n int) string {
	for _, fact := range f.Facts {
		if fact.Line <= n && n <= fact.EndLine {
			return "fact " + fact.ID
		}
	}
	return "the text outside the facts"
}

// checkIssuesText scans .beads/issues.jsonl for secrets (line by line: a
// JSON line holds no newline, so no secret spans two) and its text fields
// for control characters. With known (the lines an earlier check found
// clean, or nil for none) it scans only the other lines; remember asks for
// the keys of the lines found clean now, for the next check, and whether
// any of them is new (a line scanned and found clean).
func checkIssuesText(file string, data []byte, known *cleanLines, remember bool) (out []Finding, clean []uint64, newClean bool, err error) {
	// data is the file as fsx.ReadMapped returned it, never written
	// after: a view of it as a string saves copying megabytes (and, for
	// a mapping, faulting the copy's pages in).
	var text string
	if len(data) > 0 {
		text = unsafe.String(unsafe.SliceData(data), len(data))
	}
	if !remember {
		out, err = scanIssueLines(file, text, nil)
		return out, nil, false, err
	}
	// The lines to scan: every line not known clean, joined, with each
	// one's number in the file.
	var keys []uint64
	var todo []string
	var at []int // the file's line number of todo[i]
	for n, rest := 1, text; rest != ""; n++ {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		k := lineKey(line)
		keys = append(keys, k)
		if !known.has(k) {
			todo = append(todo, line)
			at = append(at, n)
		}
	}
	if len(todo) == len(keys) {
		out, err = scanIssueLines(file, text, nil) // nothing known: the file as it is
	} else if len(todo) > 0 {
		out, err = scanIssueLines(file, strings.Join(todo, "\n"), at)
	}
	if err != nil {
		return nil, nil, false, err
	}
	dirty := map[int]bool{}
	for _, f := range out {
		if f.Line > 0 {
			dirty[f.Line] = true
		}
	}
	for i, k := range keys {
		if !dirty[i+1] {
			clean = append(clean, k)
		}
	}
	// Every dirty line was scanned (a known line is not): a scanned line
	// more than there are dirty ones came out clean.
	return out, clean, len(todo) > len(dirty), nil
}

// scanIssueLines scans lines of issues.jsonl joined in text; line i of
// text (from 1) is line at[i-1] of the file, or line i when at is nil.
func scanIssueLines(file, text string, at []int) ([]Finding, error) {
	lineOf := func(i int) int {
		if at == nil {
			return i
		}
		return at[i-1]
	}
	found, err := secrets.ScanJSONLines(text)
	if err != nil {
		return nil, err
	}
	for i := range found {
		found[i].Line = lineOf(found[i].Line)
	}
	out := secretFindings(file, found)
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if !mayHoldControl(line) {
			continue
		}
		var v any
		if json.Unmarshal([]byte(line), &v) != nil {
			continue // the issues-jsonl rule reports it
		}
		for _, c := range controlInJSON("", v) {
			out = append(out, Finding{Severity: Warning, Rule: RuleControlCharacter, File: file, Line: lineOf(n),
				Message: fmt.Sprintf("field %q has %s", c.field, c.what), Hint: controlHint})
		}
	}
	return out, nil
}

// A change to what scanIssueLines finds on a line (the control-character
// rules here and below) must raise cleanVersion (clean.go): lines found
// clean before would not be looked at again. The secret rules are in
// secrets.RulesFingerprint already.

// mayHoldControl is a quick test for a JSON line, so that only the lines
// that may hold a control character in a string are decoded: such a
// character is written as an escape (\u001b) or, for DEL, C1 controls and
// bidirectional marks, as itself. A raw byte below 0x20 makes the line
// invalid JSON, which the issues-jsonl rule reports.
func mayHoldControl(line string) bool {
	for rest := line; ; {
		i := strings.Index(rest, `\u`)
		if i < 0 {
			break
		}
		// An escaped backslash before the u makes it text, not an
		// escape: then decoding finds nothing, which is only slower.
		if i+6 <= len(rest) {
			if v, err := strconv.ParseUint(rest[i+2:i+6], 16, 32); err == nil && secrets.MayAct(rune(v)) {
				return true
			}
		}
		rest = rest[i+2:]
	}
	for i := 0; i < len(line); i++ {
		if line[i] < 0x7f {
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		if secrets.MayAct(r) {
			return true
		}
		i += size - 1
	}
	return false
}

type controlChar struct{ field, what string }

// controlInJSON finds the strings of a decoded JSON value with a control
// character, naming each by its path (title, comments[0].text).
func controlInJSON(at string, v any) []controlChar {
	var out []controlChar
	switch v := v.(type) {
	case string:
		var te *secrets.TextError
		if err := secrets.CheckText(secrets.Field{Text: v}); errors.As(err, &te) {
			where := fmt.Sprintf("%s at column %d of its text", te.What, te.Column)
			if te.Line > 1 {
				where = fmt.Sprintf("%s at line %d, column %d of its text", te.What, te.Line, te.Column)
			}
			out = append(out, controlChar{field: at, what: where})
		}
	case []any:
		for i, e := range v {
			out = append(out, controlInJSON(at+"["+strconv.Itoa(i)+"]", e)...)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if at != "" {
				name = at + "." + k
			}
			out = append(out, controlInJSON(name, v[k])...)
		}
	}
	return out
}
