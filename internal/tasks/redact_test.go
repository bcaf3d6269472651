package tasks

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

func TestWritesFollowTheSecretsPolicy(t *testing.T) {
	t.Parallel()
	gh := secretstest.Secrets()[0]
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	who := Actor{Name: "ann"}

	refuse, _ := Parse(nil)
	if _, err := refuse.Create(NewIssue{Title: "t", Description: gh.Text, Type: "task", Priority: 2}, "mc", who, now); !errors.As(err, new(*secrets.RefusedError)) {
		t.Fatalf("refuse mode: Create = %v, want a *secrets.RefusedError", err)
	}

	s, _ := Parse(nil)
	s.Secrets = secrets.Policy{Mode: secrets.ModeRedact}
	labels := []string{"ok"}
	iss, err := s.Create(NewIssue{Title: "t", Description: "a\n" + gh.Text, Type: "task", Priority: 2, Labels: labels}, "mc", who, now)
	if err != nil {
		t.Fatal(err)
	}
	if iss.Description != "a\nexport GITHUB_TOKEN=[REDACTED:github-pat]" {
		t.Errorf("stored description %q", iss.Description)
	}
	notes := "token " + strings.TrimPrefix(gh.Text, "export GITHUB_TOKEN=")
	if _, err := s.Update(iss.ID, Changes{Notes: &notes}, now); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(notes, "token gh") {
		t.Errorf("Update wrote through the caller's pointer: %q", notes)
	}
	if _, err := s.AddComment(iss.ID, "ann", "see "+gh.Text, rand.Reader, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close(iss.ID, "done with "+gh.Text, now); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(iss.ID)
	if strings.Contains(got.Notes+got.CloseReason, "R8x2") || len(s.Comments(got)) != 1 || strings.Contains(s.Comments(got)[0].Text, "R8x2") {
		t.Errorf("a secret was stored: %+v", got)
	}
	var fields []string
	for _, r := range s.Redactions {
		fields = append(fields, r.Field+"@"+r.RuleID)
	}
	if want := "description@github-pat notes@github-pat comment@github-pat close_reason@github-pat"; strings.Join(fields, " ") != want {
		t.Errorf("redactions %v, want %s", fields, want)
	}
	if _, err := s.Create(NewIssue{Title: "red \x1b[31m", Type: "task", Priority: 2}, "mc", who, now); !errors.As(err, new(*ValidationError)) {
		t.Errorf("redact mode: terminal text = %v, want a *ValidationError", err)
	}
}
