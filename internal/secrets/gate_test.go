package secrets_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

func TestCheckRefusesEachKindOfSecretWithoutEchoingIt(t *testing.T) {
	t.Parallel()
	for _, s := range secretstest.Secrets() {
		t.Run(s.Kind, func(t *testing.T) {
			t.Parallel()
			err := secrets.Check(secrets.Field{Name: "title", Text: "fine", OneLine: true},
				secrets.Field{Name: "description", Text: "Deploy notes.\n" + s.Text + "\n"})
			var ref *secrets.RefusedError
			if !errors.As(err, &ref) {
				t.Fatalf("Check = %v, want a *RefusedError", err)
			}
			if ref.Field != "description" || ref.Findings[0].RuleID != s.Rule || ref.Findings[0].Line != 2 {
				t.Errorf("refused %+v, want field description, rule %s on line 2", ref, s.Rule)
			}
			msg := err.Error()
			if !strings.Contains(msg, `field "description"`) || !strings.Contains(msg, s.Rule+" at line 2, column ") {
				t.Errorf("message %q does not name the field, rule and position", msg)
			}
			for _, piece := range strings.Fields(s.Text) {
				if len(piece) >= 12 && strings.Contains(msg, piece) {
					t.Errorf("message %q echoes the secret", msg)
				}
			}
		})
	}
}

func TestCheckAcceptsOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, s := range secretstest.Ordinary() {
		if err := secrets.Check(secrets.Field{Name: "notes", Text: s}); err != nil {
			t.Errorf("Check(%q) = %v, want nil", s, err)
		}
	}
}

func TestCheckRefusesCharactersATerminalActsOn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		field   secrets.Field
		line    int
		col     int
		mention string
	}{
		{"newline in a title", secrets.Field{Name: "title", Text: "a\nb", OneLine: true}, 1, 2, "newline"},
		{"tab in a title", secrets.Field{Name: "title", Text: "a\tb", OneLine: true}, 1, 2, "tab"},
		{"escape sequence in a title", secrets.Field{Name: "title", Text: "ok \x1b[2J", OneLine: true}, 1, 4, "escape"},
		{"escape in a description", secrets.Field{Name: "description", Text: "line one\nred \x1b[31m"}, 2, 5, "escape"},
		{"lone carriage return", secrets.Field{Name: "notes", Text: "done\rnot done"}, 1, 5, "carriage return"},
		{"bidi override", secrets.Field{Name: "description", Text: "abc \u202e fed"}, 1, 5, "U+202E"},
		{"C1 control", secrets.Field{Name: "notes", Text: "x\u009by"}, 1, 2, "U+009B"},
		{"bell", secrets.Field{Name: "comment", Text: "ding\a"}, 1, 5, "U+0007"},
		{"invalid UTF-8", secrets.Field{Name: "title", Text: "caf\xe9", OneLine: true}, 1, 4, "not UTF-8"},
	} {
		err := secrets.Check(c.field)
		var te *secrets.TextError
		if !errors.As(err, &te) {
			t.Errorf("%s: Check = %v, want a *TextError", c.name, err)
			continue
		}
		if te.Field != c.field.Name || te.Line != c.line || te.Column != c.col || !strings.Contains(te.Error(), c.mention) {
			t.Errorf("%s: %v (line %d, column %d), want field %q at %d:%d mentioning %q", c.name, te, te.Line, te.Column, c.field.Name, c.line, c.col, c.mention)
		}
	}
}

func TestCheckAllowsLayoutInMultiLineFields(t *testing.T) {
	t.Parallel()
	text := "Steps:\r\n\t1. build\n\t2. ship — ünïcode is fine"
	if err := secrets.Check(secrets.Field{Name: "description", Text: text}); err != nil {
		t.Errorf("Check = %v, want nil", err)
	}
}

func TestRedactReplacesEverySecretAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	all := secretstest.Secrets()
	var b strings.Builder
	for _, s := range all {
		b.WriteString("before " + s.Text + " after\n")
	}
	b.WriteString(secretstest.Ordinary()[0])
	out, found, err := secrets.Redact(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != len(all) {
		t.Errorf("redacted %d findings, want %d: %v", len(found), len(all), found)
	}
	for _, s := range all {
		if !strings.Contains(out, "[REDACTED:"+s.Rule+"]") {
			t.Errorf("no [REDACTED:%s] in\n%s", s.Rule, out)
		}
	}
	if left, err := secrets.Scan(out); err != nil || len(left) != 0 {
		t.Errorf("secrets left after Redact: %v %v\n%s", left, err, out)
	}
	if strings.Count(out, "before ") != len(all) || !strings.HasSuffix(out, secretstest.Ordinary()[0]) {
		t.Errorf("Redact changed the text around the secrets:\n%s", out)
	}
	if !strings.Contains(out, "export GITHUB_TOKEN=[REDACTED:github-pat] after") {
		t.Errorf("the GitHub token's surroundings changed:\n%s", out)
	}
}

func TestRedactLeavesCleanTextUnchanged(t *testing.T) {
	t.Parallel()
	for _, s := range secretstest.Ordinary() {
		out, found, err := secrets.Redact(s)
		if err != nil || out != s || len(found) != 0 {
			t.Errorf("Redact(%q) = %q, %v, %v", s, out, found, err)
		}
	}
}

// TestMayAct: MayAct is true for every character CheckText refuses in
// multi-line text, and false for the others but the carriage return,
// which CheckText allows before a newline.
func TestMayAct(t *testing.T) {
	t.Parallel()
	for r := rune(0); r < 0x10000; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		refused := secrets.CheckText(secrets.Field{Name: "x", Text: string(r)}) != nil
		if secrets.MayAct(r) != refused {
			t.Errorf("MayAct(%U) = %v, CheckText refuses it: %v", r, secrets.MayAct(r), refused)
		}
	}
}
