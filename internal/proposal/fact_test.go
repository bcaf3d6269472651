package proposal

import (
	"errors"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/ledger"
)

// TestBudgetEffectOfANewCategoryCountsTheHeading: approving the first
// fact of a new category writes the file's heading too, and the preview
// must say what the approval really does.
func TestBudgetEffectOfANewCategoryCountsTheHeading(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n\n- Tests share port 7070.\n"}, nil)
	p := propose(t, b, Input{Action: ActionAdd, Category: "security", Content: "Rotate the deploy key yearly.", Reason: "r", NewCategory: true})
	eff, err := b.BudgetEffect(p)
	if err != nil {
		t.Fatal(err)
	}
	before, err := ledger.Load(b.FactsDir, b.FactsRel)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Approve(p, "", "ann", false, now); err != nil {
		t.Fatal(err)
	}
	after, err := ledger.Load(b.FactsDir, b.FactsRel)
	if err != nil {
		t.Fatal(err)
	}
	f, err := after.File("security")
	if err != nil {
		t.Fatal(err)
	}
	if eff.FileBefore != 0 || eff.FileAfter != f.Lines {
		t.Errorf("file %d → %d, but approving wrote %d lines", eff.FileBefore, eff.FileAfter, f.Lines)
	}
	if eff.TotalBefore != before.Lines() || eff.TotalAfter != after.Lines() {
		t.Errorf("total %d → %d, but approving moved it %d → %d", eff.TotalBefore, eff.TotalAfter, before.Lines(), after.Lines())
	}
}

func TestUnknownFactIsNotFound(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n\n- Tests share port 7070.\n"}, nil)
	for _, action := range []string{ActionUpdate, ActionRemove} {
		_, err := b.Propose(Input{Action: action, FactID: "f-nope", Content: "x", Reason: "r"}, now, rnd())
		var nf *FactNotFoundError
		if !errors.As(err, &nf) || nf.ID != "f-nope" || !errors.Is(err, ErrFactNotFound) {
			t.Errorf("%s of an unknown fact: err = %v, want a *FactNotFoundError for f-nope", action, err)
		}
	}
}

func TestCategoryThatContradictsTheFactIsRefused(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n\n- Tests share port 7070. <!-- id:win-rename -->\n", "invariants.md": "# Invariants\n"}, nil)
	for _, action := range []string{ActionUpdate, ActionRemove} {
		_, err := b.Propose(Input{Action: action, FactID: "win-rename", Category: "invariants", Content: "Tests share port 7071.", Reason: "r"}, now, rnd())
		var ce *CategoryMismatchError
		if !errors.As(err, &ce) || ce.Category != "invariants" || ce.FactCategory != "pitfalls" {
			t.Fatalf("%s with another category: err = %v, want a *CategoryMismatchError", action, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "invariants") || !strings.Contains(msg, "pitfalls") {
			t.Errorf("message %q names not both categories", msg)
		}
	}
	// The fact's own category, or none, is fine.
	propose(t, b, Input{Action: ActionUpdate, FactID: "win-rename", Category: "pitfalls", Content: "Tests share port 7071.", Reason: "r"})
}

func TestSecondPendingRemovalOrUpdateIsADuplicate(t *testing.T) {
	t.Parallel()
	b := book(t, map[string]string{"pitfalls.md": "# Pitfalls\n\n- Tests share port 7070. <!-- id:win-rename -->\n"}, nil)
	first := propose(t, b, Input{Action: ActionRemove, FactID: "win-rename", Reason: "r"})
	_, err := b.Propose(Input{Action: ActionRemove, FactID: "win-rename", Reason: "again"}, now, rnd())
	var ref *RefusedError
	if !errors.As(err, &ref) || !strings.Contains(ref.Reason, first.ID) {
		t.Errorf("second removal: err = %v, want a refusal naming %s", err, first.ID)
	}
	upd := propose(t, b, Input{Action: ActionUpdate, FactID: "win-rename", Content: "Tests share port 7071.", Reason: "r"})
	_, err = b.Propose(Input{Action: ActionUpdate, FactID: "win-rename", Content: "Tests  share port 7071.", Reason: "again"}, now, rnd())
	if !errors.As(err, &ref) || !strings.Contains(ref.Reason, upd.ID) {
		t.Errorf("second identical update: err = %v, want a refusal naming %s", err, upd.ID)
	}
	// A different update of the same fact is another proposal.
	propose(t, b, Input{Action: ActionUpdate, FactID: "win-rename", Content: "Tests share port 7072.", Reason: "r"})
}

// TestBudgetEffectOfAnAddIsWhatApprovingWrites: the preview of an add to a
// file counts every line approving it writes, including the blank line
// that separates the first fact from the file's prose.
func TestBudgetEffectOfAnAddIsWhatApprovingWrites(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"prose only":              "# Pitfalls\n\nMistakes made here before.\n",
		"prose, no final newline": "# Pitfalls\n\nMistakes made here before.",
		"ends in a fact":          "# Pitfalls\n\n- Tests share port 7070.\n",
		"blank lines at the end":  "# Pitfalls\n\nMistakes made here before.\n\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := book(t, map[string]string{"pitfalls.md": src}, nil)
			p := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Rotate the deploy key yearly.\nAsk ops for it.", Reason: "r"})
			eff, err := b.BudgetEffect(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Approve(p, "", "ann", false, now); err != nil {
				t.Fatal(err)
			}
			after, err := ledger.Load(b.FactsDir, b.FactsRel)
			if err != nil {
				t.Fatal(err)
			}
			f, err := after.File("pitfalls")
			if err != nil {
				t.Fatal(err)
			}
			if eff.FileAfter != f.Lines || eff.TotalAfter != after.Lines() {
				t.Errorf("preview: file %d → %d, total %d → %d; approving left the file %d lines, the total %d",
					eff.FileBefore, eff.FileAfter, eff.TotalBefore, eff.TotalAfter, f.Lines, after.Lines())
			}
		})
	}
}
