package secrets

import (
	"slices"
	"strings"
)

// memctl's own rules, for credentials gitleaks' default rules do not look
// for. Their ids start with "memctl-", so a finding says whose rule it
// is; docs/secrets.md lists them and what they let through, and
// TestOwnRulesAreDocumented keeps that list complete. They run after
// gitleaks' rules and outside its generic-rule filter, so they add
// findings and never hide one of gitleaks' (the differential test in
// gitleakscheck compares everything else with gitleaks).
var ownRules = [...]rule{
	{
		// A password in a URL's userinfo: postgres://app:S3cr3t@db/app,
		// https://bob:ghp_…@github.com/…. gitleaks has a rule only for
		// Sidekiq's URLs. A URL without a password (user@host,
		// ssh://git@host), scp-style git@github.com:org/repo, and
		// passwords that are placeholders (below) are not findings.
		id:          "memctl-url-credentials",
		re:          &lazyRegexp{src: `(?i)\b[a-z][a-z0-9+.-]{0,30}://([^\s:/?#@'"\x60<>()\[\]{}]*):([^\s/?#@'"\x60<>]{3,})@[a-z0-9\[][^\s/?#@'"\x60<>]*`},
		secretGroup: 2,
		keywords:    []string{"://"},
		allowlists: []allowlist{
			// The password is a placeholder: a word documentation uses
			// (as gitleaks' curl-auth-user rule lets through), a run of
			// x or *, a <name>, [name] or {name}, or a variable
			// ($PASS, ${PASS}, %PASS%, which gitleaks' global allowlist
			// also covers in their plain forms).
			{re: &lazyRegexp{src: `(?i)^(?:pass(?:word|wd)?|pwd|secret|token|changeme|change_me|changeit|example|test|dummy|fake|redacted|x{3,}|\*+|\.{3}|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\$.*|%[^%]*%)$`}},
			// The host is reserved for documentation (RFC 2606).
			{target: targetMatch, re: &lazyRegexp{src: `(?i)@(?:[a-z0-9-]+\.)*(?:example\.(?:com|org|net)|[a-z0-9-]+\.(?:example|invalid|test))(?:[:/?#\s'"]|$)`}},
		},
		sameUserPass: true,
	},
}

// IsOwnRule reports whether id is one of memctl's own rules, not one of
// gitleaks'.
func IsOwnRule(id string) bool { return strings.HasPrefix(id, "memctl-") }

// OwnRules lists the ids of memctl's own rules.
func OwnRules() []string {
	out := make([]string, len(ownRules))
	for i := range ownRules {
		out[i] = ownRules[i].id
	}
	return out
}

// scanOwn runs memctl's own rules on text.
func scanOwn(text string) ([]finding, error) {
	var (
		found    []finding
		newlines []int
	)
	for i := range ownRules {
		r := &ownRules[i]
		if !containsAny(text, r.keywords) {
			continue
		}
		re, err := r.re.get()
		if err != nil {
			return nil, err
		}
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if r.sameUserPass && text[m[2]:m[3]] == text[m[4]:m[5]] {
				continue // postgres:postgres@, guest:guest@: a default, not a secret
			}
			if newlines == nil {
				newlines = newlineIndices(text)
			}
			f, ok, err := r.check(text, re, newlines, m[0], m[1])
			if err != nil {
				return nil, err
			}
			if ok {
				found = append(found, f)
			}
		}
	}
	return found, nil
}

// KnownRule reports whether id names one of the rules memctl scans with
// (gitleaks' or its own): an allow-list entry naming another is a typo.
func KnownRule(id string) bool {
	for i := range rules {
		if rules[i].id == id {
			return true
		}
	}
	return slices.Contains(OwnRules(), id)
}
