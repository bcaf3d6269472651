package proposal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

const sig = "0123456789ab"

func playbookInput(steps ...string) PlaybookInput {
	return PlaybookInput{Signature: sig, ErrorText: "panic: index out of range [N]", Excerpt: "panic: index out of range [3]",
		Steps: steps, Author: "agent", Evidence: []Evidence{{Kind: "run", Ref: "r-41"}}}
}

func TestPlaybookProposalApprovedWritesThenAppends(t *testing.T) {
	t.Parallel()
	b := book(t, nil, nil)
	p, err := b.ProposePlaybook(playbookInput("Check the length.", " ", "Check the length."), now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindPlaybook || p.Status != StatusPending || len(p.Steps) != 1 {
		t.Fatalf("proposal %+v: want a pending playbook proposal with one step (blank and repeated steps dropped)", p)
	}
	if err := b.Approve(p, "", "rita", false, now); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b.PlaybooksDir, sig+".md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.FormatPlaybook(ledger.PlaybookContent{Signature: sig, Error: "panic: index out of range [N]", Excerpt: "panic: index out of range [3]",
		Steps: []string{"Check the length."}, Evidence: []string{"run:r-41"}})
	if string(got) != string(want) {
		t.Fatalf("playbook:\n%s\nwant:\n%s", got, want)
	}
	stored, err := b.Proposals.Get(p.ID)
	if err != nil || stored.Status != StatusApproved || stored.Reviewer != "rita" {
		t.Fatalf("stored %+v, %v", stored, err)
	}

	// The same steps again are refused; a new step with new evidence is
	// appended, and the file's first error text stays.
	if _, err := b.ProposePlaybook(playbookInput("Check the length."), now, rnd()); !isRefused(err) {
		t.Fatalf("same steps again: %v, want a refusal", err)
	}
	in := playbookInput("Check the length.", "Add a test for the empty slice.")
	in.ErrorText, in.Evidence = "other text", []Evidence{{Kind: "commit", Ref: "4f2a9c1"}}
	q, err := b.ProposePlaybook(in, now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Approve(q, "", "rita", false, now); err != nil {
		t.Fatal(err)
	}
	pb, err := b.Playbook(sig)
	if err != nil || pb == nil || len(pb.Problems) != 0 {
		t.Fatalf("playbook %+v, %v", pb, err)
	}
	if got := strings.Join(pb.StepTexts(), "|"); got != "Check the length.|Add a test for the empty slice." {
		t.Errorf("steps %q", got)
	}
	if got := strings.Join(pb.Evidence, "|"); got != "run:r-41|commit:4f2a9c1" {
		t.Errorf("evidence %q", got)
	}
	if pb.Error != "panic: index out of range [N]" {
		t.Errorf("error text %q, want the first one kept", pb.Error)
	}
}

func isRefused(err error) bool {
	var ref *RefusedError
	return errors.As(err, &ref)
}

func TestPlaybookProposalRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*PlaybookInput)
		want func(error) bool
	}{
		{"bad signature", func(in *PlaybookInput) { in.Signature = "0123456789AB" }, isRefused},
		{"no steps", func(in *PlaybookInput) { in.Steps = []string{" "} }, isRefused},
		{"no evidence", func(in *PlaybookInput) { in.Evidence = nil }, isRefused},
		{"long excerpt", func(in *PlaybookInput) { in.Excerpt = strings.Repeat("é", MaxExcerptChars+1) }, isRefused},
		{"secret in a step", func(in *PlaybookInput) { in.Steps = []string{"Set the token:\n" + secretstest.Secrets()[0].Text} }, func(err error) bool {
			var se *secrets.RefusedError
			return errors.As(err, &se) && se.Field == "steps"
		}},
		{"escape in the excerpt", func(in *PlaybookInput) { in.Excerpt = "boom \x1b[2J" }, func(err error) bool {
			var te *secrets.TextError
			return errors.As(err, &te) && te.Field == "excerpt"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := book(t, nil, nil)
			in := playbookInput("Check the length.")
			tc.edit(&in)
			_, err := b.ProposePlaybook(in, now, rnd())
			if !tc.want(err) {
				t.Fatalf("err = %v", err)
			}
			if names, _ := b.Proposals.Names(); len(names) != 0 {
				t.Fatalf("filed %v", names)
			}
		})
	}
}

func TestPlaybookProposalAndApprovalRefuseABrokenPlaybook(t *testing.T) {
	t.Parallel()
	b := book(t, nil, nil)
	p, err := b.ProposePlaybook(playbookInput("Check the length."), now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	broken := "# Playbook " + sig + "\n\n## Fix\n\nno list here\n"
	if err := os.MkdirAll(b.PlaybooksDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.PlaybooksDir, sig+".md"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var pe *ledger.PlaybookError
	if _, err := b.ProposePlaybook(playbookInput("Another step."), now, rnd()); !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("propose: %v, want a *ledger.PlaybookError at line 5", err)
	}
	if err := b.Approve(p, "", "rita", false, now); !errors.As(err, &pe) {
		t.Fatalf("approve: %v, want a *ledger.PlaybookError", err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.PlaybooksDir, sig+".md")); string(got) != broken {
		t.Fatalf("the broken file was rewritten:\n%s", got)
	}
	if err := b.Approve(p, "edited", "rita", false, now); !isRefused(err) {
		t.Fatalf("approve with text: %v, want a refusal", err)
	}
}

func TestKindOfOldFilesIsFact(t *testing.T) {
	t.Parallel()
	p, err := Decode([]byte(`{"schema_version":1,"id":"p-1","action":"add","category":"pitfalls","content":"x","reason":"y","status":"pending"}`), "p-1.json")
	if err != nil || p.Kind != KindFact {
		t.Fatalf("kind %q, %v", p.Kind, err)
	}
	if !strings.Contains(string(Encode(p)), `"kind": "fact"`) {
		t.Errorf("encoded without its kind:\n%s", Encode(p))
	}
}

func TestValidatePlaybookProposal(t *testing.T) {
	t.Parallel()
	data := []byte("{\n  \"schema_version\": 1,\n  \"id\": \"p-1\",\n  \"kind\": \"playbook\",\n  \"action\": \"add\",\n  \"signature\": \"nope\",\n  \"steps\": [],\n  \"status\": \"pending\",\n  \"created_at\": \"2026-11-22T10:00:00Z\"\n}\n")
	got := ValidateFile(data, "p-1.json", now, 0)
	if len(got) != 2 || got[0].Line != 6 || !strings.Contains(got[0].Message, `"signature"`) || got[1].Line != 7 || !strings.Contains(got[1].Message, `"steps"`) {
		t.Fatalf("problems %+v, want signature (line 6) and steps (line 7)", got)
	}
	bad := []byte(strings.Replace(string(data), `"playbook"`, `"recipe"`, 1))
	if got := ValidateFile(bad, "p-1.json", now, 0); len(got) != 1 || !strings.Contains(got[0].Message, `field "kind"`) {
		t.Fatalf("problems %+v, want the kind", got)
	}
}
