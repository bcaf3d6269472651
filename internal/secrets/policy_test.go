package secrets_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

func secretOf(t *testing.T, kind string) secretstest.Secret {
	t.Helper()
	for _, s := range secretstest.Secrets() {
		if s.Kind == kind {
			return s
		}
	}
	t.Fatalf("no secret of kind %s", kind)
	return secretstest.Secret{}
}

func TestGateRedactModeReplacesOnlyTheSecret(t *testing.T) {
	t.Parallel()
	gh := secretOf(t, "GITHUB")
	in := []secrets.Field{
		{Name: "title", Text: "push fix", OneLine: true},
		{Name: "description", Text: "Deploy:\n" + gh.Text + " then run make"},
	}
	out, red, err := secrets.Policy{Mode: secrets.ModeRedact}.Gate(in...)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != in[0] {
		t.Errorf("a field without a secret changed: %+v", out[0])
	}
	if want := "Deploy:\nexport GITHUB_TOKEN=[REDACTED:github-pat] then run make"; out[1].Text != want {
		t.Errorf("redacted %q, want %q", out[1].Text, want)
	}
	if in[1].Text == out[1].Text {
		t.Error("Gate changed its argument in place")
	}
	if len(red) != 1 || red[0].Field != "description" || red[0].RuleID != "github-pat" || red[0].Line != 2 || red[0].Column != 21 {
		t.Fatalf("redactions %+v, want github-pat in description at 2:21", red)
	}
	secret := strings.TrimPrefix(gh.Text, "export GITHUB_TOKEN=")
	if red[0].Fingerprint != secrets.Fingerprint("github-pat", secret) || strings.Contains(red[0].String(), secret) {
		t.Errorf("redaction %v: wrong fingerprint or echoes the secret", red[0])
	}
}

func TestGateRefusesTerminalTextInBothModes(t *testing.T) {
	t.Parallel()
	for _, m := range []secrets.Mode{secrets.ModeRefuse, secrets.ModeRedact} {
		_, _, err := secrets.Policy{Mode: m}.Gate(secrets.Field{Name: "notes", Text: "red \x1b[31m " + secretOf(t, "AWS").Text})
		var te *secrets.TextError
		if !errors.As(err, &te) {
			t.Errorf("mode %v: Gate = %v, want a *TextError", m, err)
		}
	}
}

func TestGateRedactsOverlappingSecretsOnce(t *testing.T) {
	t.Parallel()
	// The GitHub token is both a URL's password (memctl's rule) and a
	// github-pat: one marker over the union, the rest of the URL kept.
	tok := "gh" + "p_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
	text := "git clone https://bob:" + tok + "@github.com/org/repo"
	out, red, err := secrets.Policy{Mode: secrets.ModeRedact}.Gate(secrets.Field{Name: "notes", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out[0].Text, "R8x2") || strings.Count(out[0].Text, "[REDACTED:") != 1 ||
		!strings.HasPrefix(out[0].Text, "git clone https://bob:[REDACTED:") || !strings.HasSuffix(out[0].Text, "]@github.com/org/repo") {
		t.Errorf("redacted %q", out[0].Text)
	}
	if len(red) != 1 {
		t.Errorf("redactions %v, want one", red)
	}
}

func TestGateRedactsEveryKindAndLeavesNoSecret(t *testing.T) {
	t.Parallel()
	for _, s := range secretstest.Secrets() {
		out, red, err := secrets.Policy{Mode: secrets.ModeRedact}.Gate(secrets.Field{Name: "notes", Text: "before\n" + s.Text + "\nafter"})
		if err != nil {
			t.Fatal(err)
		}
		if len(red) == 0 || !strings.Contains(out[0].Text, "[REDACTED:"+s.Rule+"]") {
			t.Errorf("%s: %q, %v", s.Kind, out[0].Text, red)
		}
		if left, _ := secrets.Scan(out[0].Text); len(left) != 0 {
			t.Errorf("%s: left %v in %q", s.Kind, left, out[0].Text)
		}
		if !strings.HasPrefix(out[0].Text, "before\n") || !strings.HasSuffix(out[0].Text, "\nafter") {
			t.Errorf("%s: the text around the secret changed: %q", s.Kind, out[0].Text)
		}
	}
}

func TestAllowListByFingerprintAndRule(t *testing.T) {
	t.Parallel()
	gh, aws := secretOf(t, "GITHUB"), secretOf(t, "AWS")
	text := gh.Text + "\n" + aws.Text
	found, err := secrets.Scan(text)
	if err != nil || len(found) != 2 {
		t.Fatalf("Scan = %v, %v", found, err)
	}
	ghFP := found[0].Fingerprint
	if !strings.HasPrefix(ghFP, "github-pat:") || secrets.CheckFingerprint(ghFP) != nil {
		t.Fatalf("fingerprint %q is not of the form rule:hex", ghFP)
	}
	for _, c := range []struct {
		name  string
		allow []secrets.Allow
		left  []string
	}{
		{"none", nil, []string{"github-pat", "aws-access-token"}},
		{"fingerprint", []secrets.Allow{{Fingerprint: ghFP}}, []string{"aws-access-token"}},
		{"another secret's fingerprint", []secrets.Allow{{Fingerprint: secrets.Fingerprint("github-pat", "other")}}, []string{"github-pat", "aws-access-token"}},
		{"rule", []secrets.Allow{{Rule: "aws-access-token"}}, []string{"github-pat"}},
		{"rule and fingerprint", []secrets.Allow{{Rule: "github-pat", Fingerprint: ghFP}}, []string{"aws-access-token"}},
	} {
		p := secrets.Policy{Allow: c.allow}
		var got []string
		for _, f := range p.Filter(found) {
			got = append(got, f.RuleID)
		}
		if strings.Join(got, ",") != strings.Join(c.left, ",") {
			t.Errorf("%s: left %v, want %v", c.name, got, c.left)
		}
		// The gate agrees: refused while anything is left.
		_, _, err := p.Gate(secrets.Field{Name: "notes", Text: text})
		var ref *secrets.RefusedError
		if (len(c.left) > 0) != errors.As(err, &ref) {
			t.Errorf("%s: Gate = %v", c.name, err)
		}
		// In redact mode an allowed secret stays.
		out, _, err := secrets.Policy{Mode: secrets.ModeRedact, Allow: c.allow}.Gate(secrets.Field{Name: "notes", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(out[0].Text, "[REDACTED:") != len(c.left) {
			t.Errorf("%s: redact mode wrote %q", c.name, out[0].Text)
		}
	}
}

func TestFingerprintIsStableAndNamesTheRule(t *testing.T) {
	t.Parallel()
	a := secrets.Fingerprint("github-pat", "x")
	if a != secrets.Fingerprint("github-pat", "x") || a == secrets.Fingerprint("github-pat", "y") || secrets.FingerprintRule(a) != "github-pat" {
		t.Errorf("Fingerprint: %q", a)
	}
	for _, bad := range []string{"", "github-pat", "github-pat:", ":0123456789ab", "github-pat:0123456789AB", "github-pat:0123456789abc"} {
		if secrets.CheckFingerprint(bad) == nil {
			t.Errorf("CheckFingerprint(%q) = nil", bad)
		}
	}
}

func TestRefusalNamesTheFingerprint(t *testing.T) {
	t.Parallel()
	gh := secretOf(t, "GITHUB")
	err := secrets.Check(secrets.Field{Name: "notes", Text: gh.Text})
	fp := secrets.Fingerprint("github-pat", strings.TrimPrefix(gh.Text, "export GITHUB_TOKEN="))
	if err == nil || !strings.Contains(err.Error(), "(fingerprint "+fp+")") {
		t.Errorf("Check = %v, want the fingerprint %s", err, fp)
	}
}
