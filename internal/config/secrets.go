package config

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/secrets"
)

// parse checks [secrets] and fills in Policy. data is the file's text,
// for the line of a bad entry.
func (s *Secrets) parse(name string, data []byte) error {
	mode, ok := secrets.ParseMode(s.Mode)
	if !ok {
		return withKeyLine(&Error{File: name, Key: "secrets.mode",
			Message: fmt.Sprintf("unknown mode %q: use \"refuse\" (a write holding a secret is refused) or \"redact\" (the secret is replaced by [REDACTED:<rule>])", s.Mode)}, data)
	}
	p := secrets.Policy{Mode: mode}
	for i, a := range s.Allow {
		bad := func(key, msg string) error {
			return &Error{File: name, Line: allowLine(data, i, key), Key: "secrets.allow." + key,
				Message: fmt.Sprintf("entry %d: %s", i+1, msg)}
		}
		switch {
		case a.Rule == "" && a.Fingerprint == "":
			return &Error{File: name, Line: allowLine(data, i, ""), Key: "secrets.allow",
				Message: fmt.Sprintf("entry %d has neither rule nor fingerprint: copy the fingerprint memctl printed with the finding (fingerprint = \"<rule>:<hex>\"), or name a rule to let all its findings through", i+1)}
		case a.Rule != "" && !secrets.KnownRule(a.Rule):
			return bad("rule", fmt.Sprintf("no rule is called %q: copy the rule from a finding memctl printed (memctl help secrets lists memctl's own)", a.Rule))
		case a.Fingerprint != "":
			if err := secrets.CheckFingerprint(a.Fingerprint); err != nil {
				return bad("fingerprint", err.Error())
			}
			if a.Rule != "" && secrets.FingerprintRule(a.Fingerprint) != a.Rule {
				return bad("rule", fmt.Sprintf("rule %q does not match the fingerprint's rule %q: drop rule, or copy the fingerprint again", a.Rule, secrets.FingerprintRule(a.Fingerprint)))
			}
		}
		p.Allow = append(p.Allow, secrets.Allow{Rule: a.Rule, Fingerprint: a.Fingerprint, Reason: a.Reason})
	}
	s.Policy = p
	return nil
}

// allowLine is the line of entry i (0-based) of [[secrets.allow]] that
// sets key, else the entry's header; 0 when the entries are not written
// as [[secrets.allow]] tables.
func allowLine(data []byte, i int, key string) int {
	entry, header := -1, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			if entry == i {
				break // the entry's table ended
			}
			if h, _, _ := strings.Cut(line, "#"); normKey(strings.Trim(strings.TrimSpace(h), "[]")) == "secrets.allow" && strings.HasPrefix(line, "[[") {
				entry++
				if entry == i {
					header = n
				}
			}
			continue
		}
		if entry != i || key == "" {
			continue
		}
		if lhs, _, ok := strings.Cut(line, "="); ok && normKey(lhs) == key {
			return n
		}
	}
	return header
}
