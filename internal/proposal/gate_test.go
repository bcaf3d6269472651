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

var starter = map[string]string{
	"architecture.md": "# Architecture\n\n- The CLI parses flags; domain packages do the work.\n",
	"pitfalls.md":     "# Pitfalls\n\n- Never call time.Now in domain code.\n",
}

func TestProposeRefusesSecretsInEveryField(t *testing.T) {
	t.Parallel()
	for _, sec := range secretstest.Secrets() {
		for _, field := range []string{"text", "reason"} {
			t.Run(sec.Kind+"/"+field, func(t *testing.T) {
				t.Parallel()
				b := book(t, starter, nil)
				in := Input{Action: ActionAdd, Category: "pitfalls", Content: "Deploy with the token.", Reason: "it broke", Author: "agent"}
				if field == "text" {
					in.Content = "Deploy with\n" + sec.Text
				} else {
					in.Reason = "it broke\n" + sec.Text
				}
				_, err := b.Propose(in, now, rnd())
				var ref *secrets.RefusedError
				if !errors.As(err, &ref) || ref.Field != field || ref.Findings[0].RuleID != sec.Rule || ref.Findings[0].Line != 2 {
					t.Fatalf("err = %v, want a secret refused in %q by %s on line 2", err, field, sec.Rule)
				}
				if names, _ := b.Proposals.Names(); len(names) != 0 {
					t.Errorf("a refused proposal was filed: %v", names)
				}
			})
		}
	}
}

func TestProposeAcceptsOrdinaryText(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	for _, s := range secretstest.Ordinary() {
		if _, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: s, Reason: s, Author: "agent"}, now, rnd()); err != nil {
			t.Errorf("Propose(%q) = %v", s, err)
		}
	}
}

func TestApproveRefusesASecretInTheEditedText(t *testing.T) {
	t.Parallel()
	for _, sec := range secretstest.Secrets() {
		b := book(t, starter, nil)
		p, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "Deploys need a token.", Reason: "r", Author: "agent"}, now, rnd())
		if err != nil {
			t.Fatal(err)
		}
		err = b.Approve(p, "Deploys need this token: "+sec.Text, "human", false, now)
		var ref *secrets.RefusedError
		if !errors.As(err, &ref) || ref.Field != "text" || ref.Findings[0].RuleID != sec.Rule {
			t.Errorf("%s: Approve = %v, want the edited text refused", sec.Kind, err)
		}
		if src, _ := os.ReadFile(filepath.Join(b.FactsDir, "pitfalls.md")); string(src) != starter["pitfalls.md"] {
			t.Errorf("%s: the facts file changed after a refusal:\n%s", sec.Kind, src)
		}
	}
}

func TestProposeAndApproveRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	_, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "red \x1b[31malert", Reason: "r", Author: "agent"}, now, rnd())
	var te *secrets.TextError
	if !errors.As(err, &te) || te.Field != "text" {
		t.Errorf("Propose with ESC = %v, want a *secrets.TextError for text", err)
	}
	_, err = b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "fine", Reason: "r", Author: "ag\nent"}, now, rnd())
	if !errors.As(err, &te) || te.Field != "author" {
		t.Errorf("Propose with a two-line author = %v, want a *secrets.TextError for author", err)
	}
	p, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: "fine", Reason: "r", Author: "agent"}, now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Approve(p, "fine \u202e edited", "human", false, now); !errors.As(err, &te) {
		t.Errorf("Approve with a bidi override = %v, want a *secrets.TextError", err)
	}
}

func TestFactLengthLimit(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	b.Config.MaxFactChars = 20
	_, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: strings.Repeat("a", 21), Reason: "r", Author: "agent"}, now, rnd())
	var ref *RefusedError
	if !errors.As(err, &ref) || !strings.Contains(ref.Reason, "21 characters, over the limit of 20") {
		t.Errorf("Propose of 21 characters = %v, want refused over the limit of 20", err)
	}
	// The limit counts characters, not bytes: 20 accented letters pass.
	p, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", Content: strings.Repeat("é", 20), Reason: "r", Author: "agent"}, now, rnd())
	if err != nil {
		t.Fatalf("Propose of 20 characters (40 bytes) = %v", err)
	}
	if err := b.Approve(p, strings.Repeat("b", 25), "human", false, now); !errors.As(err, &ref) || !strings.Contains(ref.Reason, "25 characters") {
		t.Errorf("Approve with 25 edited characters = %v, want refused", err)
	}
	if err := b.Approve(p, "", "human", false, now); err != nil {
		t.Errorf("Approve unedited = %v", err)
	}
}

func TestUnknownCategoryIsRefusedWithASuggestion(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	_, err := b.Propose(Input{Action: ActionAdd, Category: "archtecture", Content: "x", Reason: "r", Author: "agent"}, now, rnd())
	var ce *CategoryError
	if !errors.As(err, &ce) || !errors.Is(err, ledger.ErrUnknownCategory) {
		t.Fatalf("err = %v, want a *CategoryError that is ledger.ErrUnknownCategory", err)
	}
	if ce.Suggestion != "architecture" || strings.Join(ce.Known, ",") != "architecture,pitfalls" {
		t.Errorf("suggestion %q, known %v", ce.Suggestion, ce.Known)
	}
	if _, err := os.Stat(filepath.Join(b.FactsDir, "archtecture.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a facts file was created for the misspelt category")
	}
	if _, err := b.Propose(Input{Action: ActionAdd, Category: "deployment", Content: "x", Reason: "r", Author: "agent"}, now, rnd()); !errors.As(err, &ce) || ce.Suggestion != "" {
		t.Errorf("err = %v (suggestion %q), want unknown with no close match", err, ce.Suggestion)
	}
}

func TestNewCategoryIsExplicitAndValidated(t *testing.T) {
	t.Parallel()
	b := book(t, starter, map[string]string{"deploy_notes": "readwrite"})
	p, err := b.Propose(Input{Action: ActionAdd, Category: "deploy_notes", NewCategory: true, Content: "Deploys run at noon.", Reason: "r", Author: "agent"}, now, rnd())
	if err != nil || p.Status != StatusApproved {
		t.Fatalf("Propose --new-category = %+v, %v", p, err)
	}
	src, err := os.ReadFile(filepath.Join(b.FactsDir, "deploy_notes.md"))
	if err != nil || !strings.HasPrefix(string(src), "# Deploy notes\n\n- Deploys run at noon.") {
		t.Errorf("new facts file = %q, %v", src, err)
	}
	for _, bad := range []string{"Deploy", "deploy-notes", "../etc", "a/b", "_x", "x_", "9lives", ""} {
		_, err := b.Propose(Input{Action: ActionAdd, Category: bad, NewCategory: true, Content: "x", Reason: "r", Author: "agent"}, now, rnd())
		var ref *RefusedError
		if !errors.As(err, &ref) {
			t.Errorf("new category %q: err = %v, want refused", bad, err)
		}
	}
	// --new-category on a category that exists is a plain proposal.
	if _, err := b.Propose(Input{Action: ActionAdd, Category: "pitfalls", NewCategory: true, Content: "y", Reason: "r", Author: "agent"}, now, rnd()); err != nil {
		t.Errorf("--new-category on an existing category = %v", err)
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	known := []string{"architecture", "invariants", "performance_rules", "pitfalls", "preferences"}
	for in, want := range map[string]string{
		"archtecture": "architecture", "pitfall": "pitfalls", "preference": "preferences",
		"invarients": "invariants", "Pitfalls": "pitfalls", "deployment": "", "x": "",
	} {
		if got := closest(in, known); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestApproveGatesAnUneditedProposalFromAPull(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	for i, content := range []string{"title \x1b]0;pwned\a", "Deploy with " + secretstest.Secrets()[0].Text} {
		p := &Proposal{SchemaVersion: SchemaVersion, ID: "p-pull" + string(rune('a'+i)), Action: ActionAdd, Category: "pitfalls",
			Content: content, Reason: "r", Status: StatusPending, CreatedAt: now}
		err := b.Approve(p, "", "human", false, now)
		var te *secrets.TextError
		var ref *secrets.RefusedError
		if !errors.As(err, &te) && !errors.As(err, &ref) {
			t.Errorf("Approve of %q = %v, want the gate's refusal", content, err)
		}
	}
	if src, _ := os.ReadFile(filepath.Join(b.FactsDir, "pitfalls.md")); string(src) != starter["pitfalls.md"] {
		t.Errorf("the facts file changed:\n%s", src)
	}
}

// TestApproveGatesTheReasonAndEvidence: an approved proposal file is
// committed (review --commit puts the reason in the commit message too),
// so a secret in a hand-written proposal's reason or evidence is refused
// at approval like one in its fact.
func TestApproveGatesTheReasonAndEvidence(t *testing.T) {
	t.Parallel()
	b := book(t, starter, nil)
	token := secretstest.Secrets()[0].Text
	for i, p := range []*Proposal{
		{Reason: "deployed with " + token},
		{Reason: "r", Evidence: []Evidence{{Kind: "commit", Ref: token}}},
	} {
		p.SchemaVersion, p.ID, p.Action, p.Category = SchemaVersion, "p-why"+string(rune('a'+i)), ActionAdd, "pitfalls"
		p.Content, p.Status, p.CreatedAt = "Run the integration tests with -p 1.", StatusPending, now
		err := b.Approve(p, "", "human", false, now)
		var ref *secrets.RefusedError
		if !errors.As(err, &ref) || strings.Contains(err.Error(), token) {
			t.Errorf("Approve with a secret in %+v = %v, want the gate's refusal without the secret", p, err)
		}
		if p.Status != StatusPending {
			t.Errorf("status = %s, want it still pending", p.Status)
		}
	}
	if src, _ := os.ReadFile(filepath.Join(b.FactsDir, "pitfalls.md")); string(src) != starter["pitfalls.md"] {
		t.Errorf("the facts file changed:\n%s", src)
	}
}
