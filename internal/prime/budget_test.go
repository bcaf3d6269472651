package prime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {strings.Repeat("x", 400), 100},
		{"é", 1}, {"日本語", 3}, // 2 and 9 bytes: bytes, not characters
	} {
		if got := Tokens(tc.s); got != tc.want {
			t.Errorf("Tokens(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	// A printed line counts its newline.
	if got := lineTokens("abc"); got != 1 {
		t.Errorf("lineTokens(abc) = %d, want 1 (4 bytes with the newline)", got)
	}
	if got := lineTokens("abcd"); got != 2 {
		t.Errorf("lineTokens(abcd) = %d, want 2 (5 bytes with the newline)", got)
	}
}

// testDraft is a section of n lines of 15 bytes (4 tokens each with the
// newline), titled "T" (1 token).
func testDraft(name string, n int) draft {
	d := draft{Section: Section{Name: name, Title: "T", Hint: "see"}, noun: "items"}
	for i := range n {
		d.Lines = append(d.Lines, newLine(fmt.Sprint(i), fmt.Sprintf("- %s line %5d", name, i)))
	}
	return d
}

func TestCut(t *testing.T) {
	hint := func(n int) int { return lineTokens(fmt.Sprintf("- %d more items left out: see", n)) }
	t.Run("everything fits: nothing is omitted", func(t *testing.T) {
		out := cut([]draft{testDraft("a", 3), testDraft("b", 2)}, 1000)
		if len(out[0].Lines) != 3 || len(out[1].Lines) != 2 || out[0].Omitted+out[1].Omitted != 0 {
			t.Fatalf("got %+v", out)
		}
		if want := 1 + 1 + 3*4; out[0].Tokens != want {
			t.Errorf("tokens = %d, want %d (separator, title, lines)", out[0].Tokens, want)
		}
	})
	t.Run("over budget: the first lines are kept, the rest counted with a hint", func(t *testing.T) {
		// b's summary is reserved: 1+1+hint(5); a gets the rest.
		bMin := 2 + hint(5)
		budget := bMin + 2 + 2*4 + hint(8)
		out := cut([]draft{testDraft("a", 10), testDraft("b", 5)}, budget)
		a, b := out[0], out[1]
		if len(a.Lines) != 2 || a.Omitted != 8 || a.Lines[0].ID != "0" || a.Lines[1].ID != "1" {
			t.Errorf("a: %d lines, %d omitted: %+v", len(a.Lines), a.Omitted, a.Lines)
		}
		if a.more != "- 8 more items left out: see" {
			t.Errorf("a's hint line = %q", a.more)
		}
		if len(b.Lines) != 0 || b.Omitted != 5 || b.Dropped {
			t.Errorf("b: want its summary only, got %+v", b)
		}
		if a.Tokens+b.Tokens > budget {
			t.Errorf("%d + %d tokens > budget %d", a.Tokens, b.Tokens, budget)
		}
	})
	t.Run("summaries that do not fit: the least important sections are dropped", func(t *testing.T) {
		budget := 2 + hint(5) // a's summary only
		out := cut([]draft{testDraft("a", 5), testDraft("b", 1), testDraft("c", 1)}, budget)
		if out[0].Dropped || !out[1].Dropped || !out[2].Dropped || out[1].Omitted != 1 || out[1].Tokens != 0 {
			t.Errorf("got %+v", out)
		}
	})
	t.Run("a line that does not fit ends the section: no shorter line after it is let in", func(t *testing.T) {
		d := testDraft("a", 0)
		d.Lines = []Line{newLine("big", strings.Repeat("x", 200)), newLine("small", "- s")}
		out := cut([]draft{d}, 2+hint(2)+5)
		if len(out[0].Lines) != 0 || out[0].Omitted != 2 {
			t.Errorf("got %+v", out[0])
		}
	})
	t.Run("the hint line counts in the singular for one", func(t *testing.T) {
		for noun, want := range map[string]string{"facts": "- 1 more fact left out: see", "lines of it": "- 1 more line of it left out: see",
			"tasks in progress": "- 1 more task in progress left out: see", "ready tasks": "- 1 more ready task left out: see"} {
			d := draft{Section: Section{Hint: "see"}, noun: noun}
			if got := d.hintLine(1); got != want {
				t.Errorf("%s: %q, want %q", noun, got, want)
			}
		}
		d := draft{Section: Section{Hint: "see"}, noun: "ready tasks"}
		if got := d.hintLine(2); got != "- 2 more ready tasks left out: see" {
			t.Errorf("two: %q", got)
		}
	})
	t.Run("kept facts are printed in their display order", func(t *testing.T) {
		d := testDraft("a", 3)
		d.Lines[0].order, d.Lines[1].order, d.Lines[2].order = 2, 0, 1
		d.display = func(a, b Line) int { return a.order - b.order }
		out := cut([]draft{d}, 1000)
		if got := out[0].Lines[0].ID + out[0].Lines[1].ID + out[0].Lines[2].ID; got != "120" {
			t.Errorf("order = %s, want 120", got)
		}
	})
}

// TestCutRandom: whatever the sections and the budget, the pack stays in
// the budget, its text is at most 4 bytes a token, each section keeps a
// prefix of its lines and counts the rest.
func TestCutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var drafts []draft
		for s := range 1 + r.IntN(9) {
			d := draft{Section: Section{Name: fmt.Sprint(s), Title: strings.Repeat("t", r.IntN(80)), Hint: "memctl x"}, noun: "things"}
			if r.IntN(4) == 0 {
				d.Title = ""
			}
			for i := range r.IntN(30) {
				d.Lines = append(d.Lines, newLine(fmt.Sprint(i), strings.Repeat("é", r.IntN(120))))
			}
			if len(d.Lines) == 0 {
				d.Omitted = 1 + r.IntN(3)
			}
			drafts = append(drafts, d)
		}
		budget := 1 + r.IntN(1500)
		out := cut(drafts, budget)
		p := &Pack{Sections: out}
		total := 0
		for i, s := range out {
			total += s.Tokens
			if len(s.Lines)+s.Omitted != len(drafts[i].Lines)+drafts[i].Omitted {
				t.Fatalf("section %d: %d kept + %d omitted != %d", i, len(s.Lines), s.Omitted, len(drafts[i].Lines)+drafts[i].Omitted)
			}
			for j, l := range s.Lines {
				if l.ID != drafts[i].Lines[j].ID {
					t.Fatalf("section %d keeps line %s at %d: not a prefix", i, l.ID, j)
				}
			}
		}
		if total > budget {
			t.Fatalf("%d tokens > budget %d", total, budget)
		}
		if n := len(p.Text()); n > 4*total {
			t.Fatalf("text of %d bytes > 4 × %d tokens", n, total)
		}
	}
}
