package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// GateError refuses an import whose files hold what memctl's write gate
// refuses from any writer: what looks like a credential, or a control
// character, escape or bidirectional override in text. An archive can be
// crafted, so its files pass the gate as a new fact or task would. Every
// finding of every file is listed (never the secret); nothing was written.
type GateError struct {
	Findings []GateFinding
	// ArchiveAllows counts the findings the archive's own config.toml
	// allow-lists, which an import does not trust.
	ArchiveAllows int
}

// GateFinding is one refusal: the file, where in it, and the rule
// (a gitleaks rule id, or "control-character").
type GateFinding struct {
	Path         string
	Line, Column int
	Rule         string
	// Fingerprint is a secret's, as [[secrets.allow]] takes it; "" for a
	// control character.
	Fingerprint string
}

func (f GateFinding) String() string {
	if f.Fingerprint != "" {
		return fmt.Sprintf("%s:%d:%d: %s (fingerprint %s)", f.Path, f.Line, f.Column, f.Rule, f.Fingerprint)
	}
	return fmt.Sprintf("%s:%d:%d: %s", f.Path, f.Line, f.Column, f.Rule)
}

// allow drops the secrets the allow-list lets through.
func (e *GateError) allow(p secrets.Policy) {
	e.Findings = slices.DeleteFunc(e.Findings, func(f GateFinding) bool {
		return f.Fingerprint != "" && p.Allows(secrets.Finding{RuleID: f.Rule, Fingerprint: f.Fingerprint})
	})
}

func (e *GateError) Error() string {
	parts := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		parts[i] = f.String()
	}
	msg := fmt.Sprintf("the archive holds what memctl refuses to store (%d finding(s), the secrets not shown): %s", len(e.Findings), strings.Join(parts, "; "))
	if e.ArchiveAllows > 0 {
		msg += fmt.Sprintf("; the archive's own config.toml allow-lists %d of them, which an import does not trust: copy those [[secrets.allow]] entries into this workspace's .ledger/config.toml if you trust them, then import again", e.ArchiveAllows)
	}
	return msg
}

// check runs the gate over one file: JSON files are scanned value by value
// as memctl check scans them (the keys are not text), the others as text.
func (e *GateError) check(en Entry, data []byte) {
	text := string(data)
	var found []secrets.Finding
	var err error
	switch en.Kind {
	case KindIssues, KindProposal, KindRun:
		found, err = secrets.ScanJSONLines(text)
	default:
		found, err = secrets.Scan(text)
	}
	if err != nil {
		e.Findings = append(e.Findings, GateFinding{Path: en.Path, Line: 1, Column: 1, Rule: "scan failed: " + err.Error()})
		return
	}
	for _, f := range found {
		e.Findings = append(e.Findings, GateFinding{Path: en.Path, Line: f.Line, Column: f.Column, Rule: f.RuleID, Fingerprint: f.Fingerprint})
	}
	switch en.Kind {
	case KindIssues:
		for i, line := range bytes.Split(data, []byte{'\n'}) {
			if mayAct(line) && jsonActs(line) {
				e.Findings = append(e.Findings, GateFinding{Path: en.Path, Line: i + 1, Column: actColumn(line), Rule: "control-character"})
			}
		}
	case KindProposal, KindRun:
		if mayAct(data) && jsonActs(data) {
			line, col := 1, 1
			for i, l := range bytes.Split(data, []byte{'\n'}) {
				if c := actColumn(l); c > 1 || mayAct(l) {
					line, col = i+1, c
					break
				}
			}
			e.Findings = append(e.Findings, GateFinding{Path: en.Path, Line: line, Column: col, Rule: "control-character"})
		}
	default:
		var te *secrets.TextError
		if err := secrets.CheckText(secrets.Field{Text: text}); errors.As(err, &te) {
			e.Findings = append(e.Findings, GateFinding{Path: en.Path, Line: te.Line, Column: te.Column, Rule: "control-character"})
		}
	}
}

// mayAct reports whether JSON text may hold, in a string, a character the
// gate refuses: written as it is, or as an escape (\u001b, \u202e; \r,
// which is allowed before a newline). Text that cannot is not decoded;
// the bytes are read once, without converting them (bd escapes <, > and &
// as \u003c…, so most escapes are harmless).
func mayAct(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\' && i+1 < len(b):
			switch b[i+1] {
			case 'r':
				return true
			case 'u':
				if r, ok := hexRune(b[i+2:]); ok && secrets.MayAct(r) {
					return true
				}
			}
			i++
		case c < utf8.RuneSelf:
			if secrets.MayAct(rune(c)) {
				return true
			}
		default:
			r, n := utf8.DecodeRune(b[i:])
			if secrets.MayAct(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// hexRune reads the four hex digits of a \u escape at the start of b.
func hexRune(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonActs reports whether a string value in the JSON text b (keys
// included) is one the gate refuses.
func jsonActs(b []byte) bool {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false // validate reports what is not JSON
	}
	bad := false
	walkStrings(v, func(s string) {
		bad = bad || secrets.CheckText(secrets.Field{Text: s}) != nil
	})
	return bad
}

// actColumn is the 1-based byte column of the first character in line
// the gate may refuse, written as it is or as a \u escape; 1 if none is
// found (a carriage return written \r).
func actColumn(line []byte) int {
	for i, r := range string(line) {
		if secrets.MayAct(r) {
			return i + 1
		}
		if r == '\\' && i+1 < len(line) && line[i+1] == 'u' {
			if v, ok := hexRune(line[i+2:]); ok && secrets.MayAct(v) {
				return i + 1
			}
		}
	}
	return 1
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case map[string]any:
		for k, e := range x {
			fn(k)
			walkStrings(e, fn)
		}
	}
}

// ContentError is a file of the archive that memctl could not read once
// restored: a line of issues.jsonl memctl check refuses, or a proposal or
// run record that is not JSON. Nothing was written.
type ContentError struct {
	Path    string
	Line    int
	Field   string
	Message string
}

func (e *ContentError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: field %q: %s", e.Path, e.Line, e.Field, e.Message)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Message)
}

// validate reads a file as the commands that use it will.
func validate(e Entry, data []byte) error {
	switch e.Kind {
	case KindIssues:
		if probs, _ := tasks.ValidateJSONL(data); len(probs) > 0 {
			p := probs[0]
			return &ContentError{Path: e.Path, Line: p.Line, Field: p.Field, Message: p.Message}
		}
	case KindConfig:
		if _, _, err := config.Parse(data, e.Path, config.Default("x")); err != nil {
			ce := &ContentError{Path: e.Path, Line: 1, Message: err.Error()}
			var cerr *config.Error
			if errors.As(err, &cerr) {
				ce.Line, ce.Field, ce.Message = max(cerr.Line, 1), cerr.Key, cerr.Message
			}
			return ce
		}
	case KindProposal, KindRun:
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			line := 1
			if se, ok := err.(*json.SyntaxError); ok {
				line += bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
			}
			return &ContentError{Path: e.Path, Line: line, Message: "not a JSON object: " + err.Error()}
		}
	}
	return nil
}
