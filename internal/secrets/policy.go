package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Mode is what the write gate does with text that holds a secret.
type Mode uint8

// The modes of [secrets] mode.
const (
	// ModeRefuse refuses the write (a *RefusedError): the default, since the
	// writer (an agent, a person) can take the secret out and try again.
	ModeRefuse Mode = iota
	// ModeRedact stores the text with each secret replaced by
	// [REDACTED:<rule id>] and reports the replacements (Redaction).
	ModeRedact
)

// ParseMode reads a mode's name as config.toml writes it.
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "refuse":
		return ModeRefuse, true
	case "redact":
		return ModeRedact, true
	}
	return ModeRefuse, false
}

func (m Mode) String() string {
	if m == ModeRedact {
		return "redact"
	}
	return "refuse"
}

// Allow is one entry of the allow-list ([[secrets.allow]] in
// config.toml): a finding the gate and memctl check let through, as a
// line of gitleaks' .gitleaksignore does. Fingerprint picks one finding
// (one secret under one rule); Rule alone lets every finding of that rule
// through; with both, the fingerprint must be of that rule.
type Allow struct {
	Rule        string
	Fingerprint string
	Reason      string
}

// Policy is how the write gate treats secrets: the workspace's [secrets]
// table. The zero Policy refuses every secret.
type Policy struct {
	Mode  Mode
	Allow []Allow
}

// Allows reports whether the allow-list lets f through.
func (p Policy) Allows(f Finding) bool {
	for _, a := range p.Allow {
		switch {
		case a.Fingerprint != "":
			if a.Fingerprint == f.Fingerprint {
				return true
			}
		case a.Rule == f.RuleID:
			return true
		}
	}
	return false
}

// Filter returns the findings the allow-list does not let through.
func (p Policy) Filter(found []Finding) []Finding {
	if len(p.Allow) == 0 {
		return found
	}
	return slices.DeleteFunc(slices.Clone(found), p.Allows)
}

// fingerprintHex is how many hex digits of the secret's hash a
// fingerprint keeps: 48 bits, enough that two secrets under one rule
// never share one, short enough to copy.
const fingerprintHex = 12

// Fingerprint identifies a finding without its secret: the rule id, a
// colon and the first 12 hex digits of the SHA-256 of the secret. It is
// the same wherever the secret is (a write has no file or commit yet), so
// one allow-list entry covers the secret in every file and every version.
func Fingerprint(ruleID, secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return ruleID + ":" + hex.EncodeToString(sum[:])[:fingerprintHex]
}

// CheckFingerprint reports what is wrong with a fingerprint as a person
// wrote it in config, or nil: the form Fingerprint makes.
func CheckFingerprint(s string) error {
	rule, sum, ok := strings.Cut(s, ":")
	if !ok || rule == "" || len(sum) != fingerprintHex || strings.Trim(sum, "0123456789abcdef") != "" {
		return fmt.Errorf("%q is not a fingerprint: copy one memctl printed, <rule id>:<%d lower-case hex digits>", s, fingerprintHex)
	}
	return nil
}

// FingerprintRule is the rule id a fingerprint names.
func FingerprintRule(s string) string {
	rule, _, _ := strings.Cut(s, ":")
	return rule
}

// Redaction is one secret the gate replaced in a field, in redact mode:
// which rule, where in the field's text as given, and its fingerprint.
type Redaction struct {
	Field string
	Finding
}

func (r Redaction) String() string {
	return fmt.Sprintf("redacted %s in field %q at line %d, column %d (fingerprint %s)", r.RuleID, r.Field, r.Line, r.Column, r.Fingerprint)
}

// Gate is the write gate under p, for every writer: a *TextError for the
// first field with a character a terminal would act on (in either mode);
// then, in ModeRefuse, a *RefusedError for the first field holding a
// secret the allow-list does not let through; in ModeRedact, the fields
// with each such secret replaced by [REDACTED:<rule id>] and the list of
// what was replaced. The fields come back in their order, unchanged when
// they hold no secret; fields is not modified.
func (p Policy) Gate(fields ...Field) ([]Field, []Redaction, error) {
	for _, f := range fields {
		if err := CheckText(f); err != nil {
			return nil, nil, err
		}
	}
	out := slices.Clone(fields)
	var redacted []Redaction
	for i, f := range fields {
		found, err := scan(f.Text)
		if err != nil {
			return nil, nil, err
		}
		found = p.keep(f.Text, found)
		if len(found) == 0 {
			continue
		}
		if p.Mode == ModeRefuse {
			return nil, nil, &RefusedError{Field: f.Name, Findings: positions(f.Text, found)}
		}
		text, done := replace(f.Text, found)
		out[i].Text = text
		for _, d := range done {
			redacted = append(redacted, Redaction{Field: f.Name, Finding: d})
		}
	}
	return out, redacted, nil
}

// keep drops the findings the allow-list lets through.
func (p Policy) keep(text string, found []finding) []finding {
	if len(p.Allow) == 0 {
		return found
	}
	return slices.DeleteFunc(found, func(f finding) bool {
		return p.Allows(Finding{RuleID: f.rule.id, Fingerprint: Fingerprint(f.rule.id, f.secret)})
	})
}

// RedactText is Redact under p: the allow-listed secrets stay.
func (p Policy) RedactText(text string) (string, []Finding, error) {
	found, err := scan(text)
	if err != nil {
		return text, nil, err
	}
	found = p.keep(text, found)
	if len(found) == 0 {
		return text, nil, nil
	}
	out, done := replace(text, found)
	return out, done, nil
}

// Text is a piece of text a writer holds by pointer, for Pass.
type Text struct {
	Name    string
	S       *string
	OneLine bool
}

// Pass is Gate for text held by pointer: what Gate lets through (the text
// redacted, in ModeRedact) is written back through the pointers, and only
// when the whole gate passes.
func (p Policy) Pass(ts ...Text) ([]Redaction, error) {
	fs := make([]Field, len(ts))
	for i, t := range ts {
		fs[i] = Field{Name: t.Name, Text: *t.S, OneLine: t.OneLine}
	}
	out, red, err := p.Gate(fs...)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		*t.S = out[i].Text
	}
	return red, nil
}
