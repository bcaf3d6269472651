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
		res := cut([]draft{testDraft("a", 3), testDraft("b", 2)}, 1000, "")
		out := res.sections
		if len(out[0].Lines) != 3 || len(out[1].Lines) != 2 || out[0].Omitted+out[1].Omitted != 0 || res.leftOut != "" {
			t.Fatalf("got %+v", res)
		}
		if want := 1 + 3*4; out[0].Tokens != want {
			t.Errorf("first tokens = %d, want %d (title, lines; no blank line before it)", out[0].Tokens, want)
		}
		if want := 1 + 1 + 2*4; out[1].Tokens != want {
			t.Errorf("second tokens = %d, want %d (blank line, title, lines)", out[1].Tokens, want)
		}
	})
	t.Run("over budget: the first lines are kept, later sections are named at the end", func(t *testing.T) {
		left := leftOutLine([]draft{testDraft("b", 5)}, 0)
		if left != "- left out for the budget: b (5): memctl prime --budget-tokens 100" {
			t.Fatalf("left-out line = %q", left)
		}
		budget := 1 + 2*4 + hint(8) + 1 + lineTokens(left)
		res := cut([]draft{testDraft("a", 10), testDraft("b", 5)}, budget, "")
		a, b := res.sections[0], res.sections[1]
		if len(a.Lines) != 2 || a.Omitted != 8 || a.Lines[0].ID != "0" || a.Lines[1].ID != "1" {
			t.Errorf("a: %d lines, %d omitted: %+v", len(a.Lines), a.Omitted, a.Lines)
		}
		if a.more != "- 8 more items left out: see" {
			t.Errorf("a's hint line = %q", a.more)
		}
		if len(b.Lines) != 0 || b.Omitted != 5 || !b.Dropped || b.Tokens != 0 {
			t.Errorf("b: want it left out whole, got %+v", b)
		}
		if res.leftOut != left {
			t.Errorf("left-out line = %q, want %q", res.leftOut, left)
		}
		if a.Tokens+res.closing != budget {
			t.Errorf("%d + %d tokens != budget %d", a.Tokens, res.closing, budget)
		}
	})
	t.Run("a later section never gets lines when an earlier one was cut", func(t *testing.T) {
		big := testDraft("a", 0)
		big.Lines = []Line{newLine("x", "- short"), newLine("big", strings.Repeat("x", 400))}
		res := cut([]draft{big, testDraft("b", 1)}, 60, "")
		if len(res.sections[0].Lines) != 1 || len(res.sections[1].Lines) != 0 || !res.sections[1].Dropped {
			t.Errorf("got %+v", res.sections)
		}
	})
	t.Run("a one-line section is named at the end, never cut to a hint line", func(t *testing.T) {
		d := testDraft("a", 1)
		d.Title = ""
		d.Lines[0] = newLine("0", strings.Repeat("x", 200))
		left := leftOutLine([]draft{d}, 0)
		res := cut([]draft{testDraft("z", 1), d}, 1+4+1+lineTokens(left), "")
		if res.sections[1].more != "" || !res.sections[1].Dropped || !strings.Contains(res.leftOut, "a (1)") {
			t.Errorf("got %+v, left out %q", res.sections[1], res.leftOut)
		}
	})
	t.Run("a budget that holds only the closing line", func(t *testing.T) {
		left := leftOutLine([]draft{testDraft("a", 5), testDraft("b", 1)}, 0)
		res := cut([]draft{testDraft("a", 5), testDraft("b", 1)}, lineTokens(left), "")
		if res.leftOut == "" || !res.sections[0].Dropped || !res.sections[1].Dropped || res.closing != lineTokens(res.leftOut) {
			t.Errorf("got %+v", res)
		}
		res = cut([]draft{testDraft("a", 5), testDraft("b", 1)}, lineTokens(left)-1, "")
		if res.leftOut != "" || res.closing != 0 || !res.sections[0].Dropped {
			t.Errorf("a budget below the closing line: want nothing, got %+v", res)
		}
	})
	t.Run("the not-shown line is kept first", func(t *testing.T) {
		ns := "- not shown: tasks (x cannot be read): memctl check"
		res := cut([]draft{testDraft("a", 3)}, 1+3*4+1+lineTokens(ns), ns)
		if res.notShown != ns || len(res.sections[0].Lines) != 3 {
			t.Errorf("got %+v", res)
		}
		res = cut([]draft{testDraft("a", 30)}, lineTokens(ns)+lineTokens(leftOutLine([]draft{testDraft("a", 30)}, 0)), ns)
		if res.notShown != ns || len(res.sections[0].Lines) == 30 {
			t.Errorf("a small budget: got %+v", res)
		}
	})
	t.Run("a line that does not fit ends the section: no shorter line after it is let in", func(t *testing.T) {
		d := testDraft("a", 0)
		d.Lines = []Line{newLine("big", strings.Repeat("x", 200)), newLine("small", "- s")}
		res := cut([]draft{d}, 2+hint(2)+20, "")
		if len(res.sections[0].Lines) != 0 || res.sections[0].Omitted != 2 {
			t.Errorf("got %+v", res.sections[0])
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
		out := cut([]draft{d}, 1000, "").sections
		if got := out[0].Lines[0].ID + out[0].Lines[1].ID + out[0].Lines[2].ID; got != "120" {
			t.Errorf("order = %s, want 120", got)
		}
	})
}

// TestCutRandom: whatever the sections and the budget, the pack stays in
// the budget and costs exactly what its text does, its text is at most 4
// bytes a token, each section keeps a prefix of its lines and counts the
// rest, no section has lines after one that was cut, and a larger budget
// never shows fewer lines of any section.
func TestCutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
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
		notShown := ""
		if r.IntN(3) == 0 {
			notShown = "- not shown: tasks (cannot be read): memctl check"
		}
		budget := 1 + r.IntN(1500)
		prev := cut(drafts, budget, notShown)
		for _, budget := range []int{budget, budget + 1 + r.IntN(40)} {
			res := cut(drafts, budget, notShown)
			p := &Pack{Sections: res.sections, LeftOut: res.leftOut, NotShown: res.notShown}
			total := res.closing
			cutBefore := false
			for i, s := range res.sections {
				total += s.Tokens
				if len(s.Lines)+s.Omitted != len(drafts[i].Lines)+drafts[i].Omitted {
					t.Fatalf("section %d: %d kept + %d omitted != %d", i, len(s.Lines), s.Omitted, len(drafts[i].Lines)+drafts[i].Omitted)
				}
				for j, l := range s.Lines {
					if l.ID != drafts[i].Lines[j].ID {
						t.Fatalf("section %d keeps line %s at %d: not a prefix", i, l.ID, j)
					}
				}
				if cutBefore && len(s.Lines) > 0 {
					t.Fatalf("budget %d: section %d has lines after an earlier section was cut", budget, i)
				}
				if len(s.Lines) < len(drafts[i].Lines) {
					cutBefore = true
				}
				if n := len(prev.sections[i].Lines); len(s.Lines) < n {
					t.Fatalf("section %d: %d lines at budget %d, %d at a smaller one", i, len(s.Lines), budget, n)
				}
			}
			if total > budget {
				t.Fatalf("%d tokens > budget %d", total, budget)
			}
			text := p.Text()
			if n := TextTokens(text); n != total {
				t.Fatalf("budget %d: the text costs %d tokens, the pack says %d:\n%s", budget, n, total, text)
			}
			if n := len(text); n > 4*total {
				t.Fatalf("text of %d bytes > 4 × %d tokens", n, total)
			}
			if cutBefore && text != "" && !strings.Contains(text, "left out") {
				t.Fatalf("budget %d: lines were cut and the text does not say so:\n%s", budget, text)
			}
			prev = res
		}
	}
}
