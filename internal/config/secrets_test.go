package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets"
)

func TestSecretsTable(t *testing.T) {
	t.Parallel()
	base := Default("x")
	t.Run("default refuses with no allow-list", func(t *testing.T) {
		cfg, _, err := Parse(nil, "c.toml", base)
		if err != nil || !reflect.DeepEqual(cfg.Secrets.Policy, secrets.Policy{}) {
			t.Errorf("Parse = %+v, %v", cfg.Secrets, err)
		}
	})
	t.Run("redact mode and allow entries become the policy", func(t *testing.T) {
		src := "[secrets]\nmode = \"redact\"\n\n[[secrets.allow]]\nfingerprint = \"github-pat:0123456789ab\"\nreason = \"a fixture\"\n\n[[secrets.allow]]\nrule = \"memctl-url-credentials\"\n"
		cfg, warns, err := Parse([]byte(src), "c.toml", base)
		if err != nil || len(warns) != 0 {
			t.Fatal(err, warns)
		}
		want := secrets.Policy{Mode: secrets.ModeRedact, Allow: []secrets.Allow{
			{Fingerprint: "github-pat:0123456789ab", Reason: "a fixture"}, {Rule: "memctl-url-credentials"}}}
		if !reflect.DeepEqual(cfg.Secrets.Policy, want) {
			t.Errorf("policy %+v, want %+v", cfg.Secrets.Policy, want)
		}
	})
	for _, c := range []struct {
		name, src, key string
		line           int
		mention        string
	}{
		{"unknown mode", "[secrets]\n# how\nmode = \"mask\"\n", "secrets.mode", 3, `unknown mode "mask"`},
		{"mode of the wrong type", "[secrets]\nmode = 1\n", "secrets.mode", 2, ""},
		{"entry with neither key", "[[secrets.allow]]\nrule = \"github-pat\"\n\n[[secrets.allow]]\nreason = \"why\"\n", "secrets.allow", 4, "entry 2 has neither rule nor fingerprint"},
		{"unknown rule", "[[secrets.allow]]\nreason = \"typo\"\nrule = \"github-pats\"\n", "secrets.allow.rule", 3, `no rule is called "github-pats"`},
		{"bad fingerprint", "[secrets]\nmode = \"refuse\"\n[[secrets.allow]]\nreason = \"r\"\nfingerprint = \"ghp_R8x2Lq9Z\"\n", "secrets.allow.fingerprint", 5, "not a fingerprint"},
		{"rule not the fingerprint's", "[[secrets.allow]]\nfingerprint = \"github-pat:0123456789ab\"\nrule = \"aws-access-token\"\n", "secrets.allow.rule", 3, "does not match"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.src), "c.toml", base)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse = %v, want an *Error", err)
			}
			if e.Key != c.key || e.Line != c.line || !strings.Contains(e.Message, c.mention) {
				t.Errorf("error %v (key %q, line %d), want key %q at line %d mentioning %q", e, e.Key, e.Line, c.key, c.line, c.mention)
			}
		})
	}
}
