package proposal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
)

const pitfalls = "# Pitfalls\n\n- Keys are at most 256 bytes. <!-- id:old-1 -->\n"

func propose(t *testing.T, b *Book, in Input) *Proposal {
	t.Helper()
	if in.Reason == "" {
		in.Reason = "r"
	}
	p, err := b.Propose(in, now, rnd())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReread(t *testing.T) {
	t.Parallel()
	t.Run("unchanged proposal is returned as stored", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		p := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
		got, err := b.Reread(p)
		if err != nil || got.ID != p.ID || got.Status != StatusPending {
			t.Fatalf("Reread = %+v, %v; want the pending proposal", got, err)
		}
	})
	t.Run("proposal decided by another reviewer is a ChangedError", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		seen := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
		other, err := b.Proposals.Get(seen.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Reject(other, "not a pitfall", "bob", now); err != nil {
			t.Fatal(err)
		}
		_, err = b.Reread(seen)
		var ch *ChangedError
		if !errors.As(err, &ch) || ch.Status != StatusRejected || ch.Reviewer != "bob" {
			t.Fatalf("Reread = %v, want a ChangedError naming rejected and bob", err)
		}
		if !errors.Is(err, fsx.ErrChanged) {
			t.Errorf("ChangedError does not match fsx.ErrChanged (exit 5)")
		}
		if want := "was rejected by bob since you read it"; !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	})
	t.Run("proposal whose text changed is a ChangedError", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		seen := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
		other, _ := b.Proposals.Get(seen.ID)
		other.Content = "Port 7071 is shared."
		if err := b.Proposals.Save(other); err != nil {
			t.Fatal(err)
		}
		var ch *ChangedError
		if _, err := b.Reread(seen); !errors.As(err, &ch) || ch.Status != StatusPending {
			t.Fatalf("Reread = %v, want a ChangedError", err)
		}
	})
}

func TestApproveEditSemantics(t *testing.T) {
	t.Parallel()
	actions := func(p *Proposal) string {
		var a []string
		for _, e := range p.History {
			a = append(a, e.Action)
		}
		return strings.Join(a, ",")
	}
	t.Run("unchanged text records no edit", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		p := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
		if err := b.Approve(p, "  Port 7070 is shared.\n", "rita", false, now); err != nil {
			t.Fatal(err)
		}
		if got := actions(p); got != "proposed,approved" {
			t.Errorf("history = %s, want proposed,approved", got)
		}
	})
	t.Run("changed text records the edit with old and new content", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		p := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
		if err := b.Approve(p, "Port 7070 is shared; use -p 1.", "rita", false, now); err != nil {
			t.Fatal(err)
		}
		e := p.History[1]
		if got := actions(p); got != "proposed,edited,approved" || e.OldContent != "Port 7070 is shared." || e.NewContent != "Port 7070 is shared; use -p 1." {
			t.Errorf("history = %s, edit %+v", got, e)
		}
	})
	t.Run("removal refuses an edit and records no new content", func(t *testing.T) {
		b := book(t, map[string]string{"pitfalls.md": pitfalls}, nil)
		p := propose(t, b, Input{Action: ActionRemove, FactID: "old-1"})
		var ref *RefusedError
		if err := b.Approve(p, "Keys are at most 512 bytes.", "rita", false, now); !errors.As(err, &ref) {
			t.Fatalf("Approve(remove, text) = %v, want a RefusedError", err)
		}
		if p.Status != StatusPending || p.Content != "" {
			t.Fatalf("refused edit changed the proposal: %+v", p)
		}
		if err := b.Approve(p, "", "rita", false, now); err != nil {
			t.Fatal(err)
		}
		for _, e := range p.History {
			if e.NewContent != "" {
				t.Errorf("event %s records new_content %q for a removal", e.Action, e.NewContent)
			}
		}
		if got := actions(p); got != "proposed,approved" {
			t.Errorf("history = %s", got)
		}
	})
}

func TestConflictedFactsFileIsNotWritten(t *testing.T) {
	t.Parallel()
	conflicted := pitfalls + "<<<<<<< HEAD\n- Ours.\n=======\n- Theirs.\n>>>>>>> x\n"
	b := book(t, map[string]string{"pitfalls.md": pitfalls, "preferences.md": "# Preferences\n"}, nil)
	p := propose(t, b, Input{Action: ActionAdd, Category: "pitfalls", Content: "Port 7070 is shared."})
	if err := os.WriteFile(filepath.Join(b.FactsDir, "pitfalls.md"), []byte(conflicted), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *ledger.ConflictError
	if err := b.Approve(p, "", "rita", false, now); !errors.As(err, &ce) || ce.Line != 4 {
		t.Fatalf("Approve into a conflicted file = %v, want a ConflictError at line 4", err)
	}
	if data, _ := os.ReadFile(filepath.Join(b.FactsDir, "pitfalls.md")); string(data) != conflicted {
		t.Errorf("the conflicted file was written:\n%s", data)
	}
	for _, in := range []Input{
		{Action: ActionAdd, Category: "pitfalls", Content: "Another.", Reason: "r"},
		{Action: ActionUpdate, FactID: "old-1", Content: "Keys are at most 512 bytes.", Reason: "r"},
	} {
		if _, err := b.Propose(in, now, rnd()); !errors.As(err, &ce) {
			t.Errorf("Propose %s into a conflicted file = %v, want a ConflictError", in.Action, err)
		}
	}
	propose(t, b, Input{Action: ActionAdd, Category: "preferences", Content: "Tabs."})
}
