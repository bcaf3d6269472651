package ledger

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/ids"
)

func TestParse(t *testing.T) {
	t.Parallel()
	type want struct {
		line, end int
		text, id  string
	}
	cases := []struct {
		name     string
		src      string
		facts    []want
		problems []int // lines
	}{
		{
			name:  "headings and prose around facts are not facts",
			src:   "# Pitfalls\n\nWhat bit us before.\n\n- Never call time.Now in domain code.\n",
			facts: []want{{5, 5, "Never call time.Now in domain code.", ids.Fact("p", "Never call time.Now in domain code.")}},
		},
		{
			name: "continuation lines belong to the fact",
			src:  "- one\n  continued\n- two\n",
			facts: []want{
				{1, 2, "one\ncontinued", ""},
				{3, 3, "two", ""},
			},
		},
		{
			name:  "lazy continuation and trailing blank lines",
			src:   "- three\ncontinues lazily\n\n\n# Next\n",
			facts: []want{{1, 2, "three\ncontinues lazily", ""}},
		},
		{
			name:  "explicit id wins over the derived one",
			src:   "- Keep ids stable. <!-- id:f-keep123 -->\n",
			facts: []want{{1, 1, "Keep ids stable.", "f-keep123"}},
		},
		{
			name:  "explicit id on its own continuation line",
			src:   "- Keep ids stable.\n  <!-- id:arch.7 -->\n",
			facts: []want{{1, 2, "Keep ids stable.", "arch.7"}},
		},
		{
			name:  "list items in code fences are not facts",
			src:   "```\n- not a fact\n```\n- a fact\n",
			facts: []want{{4, 4, "a fact", ""}},
		},
		{
			name:  "nested lists and code stay inside the fact",
			src:   "1. ordered\n   - nested\n\n   ```go\n   code\n   ```\n\nAfter.\n",
			facts: []want{{1, 6, "ordered\n- nested\n\n```go\ncode\n```", ""}},
		},
		{
			name:  "CRLF line endings",
			src:   "- one\r\n  two\r\n- three\r\n",
			facts: []want{{1, 2, "one\ntwo", ""}, {3, 3, "three", ""}},
		},
		{
			name:     "empty item is a problem",
			src:      "- one\n-\n- two\n",
			facts:    []want{{1, 1, "one", ""}, {3, 3, "two", ""}},
			problems: []int{2},
		},
		{
			name:     "an item holding only empty lists is a problem",
			src:      "- one\n* *\n\n  after\n\n- 1. -\n- - x\n- 2)\tb\n",
			facts:    []want{{1, 1, "one", ""}, {7, 7, "- x", ""}, {8, 8, "2)\tb", ""}},
			problems: []int{2, 6},
		},
		{
			name:     "an empty item before CRLF is an empty item, not the text of the one before",
			src:      "1) one\r\n2)\r\n- three\r\n",
			facts:    []want{{1, 1, "one", ""}, {3, 3, "three", ""}},
			problems: []int{2},
		},
		{
			name:     "malformed id is a problem",
			src:      "- fine\n- bad id <!-- id:no way -->\n",
			facts:    []want{{1, 1, "fine", ""}},
			problems: []int{2},
		},
		{
			name:     "two ids in one fact is a problem",
			src:      "- a <!-- id:x --> <!-- id:y -->\n",
			problems: []int{1},
		},
		{
			name:     "invalid UTF-8 is a problem",
			src:      "- ok\n- bad \xff\n",
			problems: []int{2},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Parse("p", ".ledger/facts/p.md", []byte(c.src))
			if len(f.Facts) != len(c.facts) {
				t.Fatalf("got %d facts %+v, want %d", len(f.Facts), f.Facts, len(c.facts))
			}
			for i, w := range c.facts {
				g := f.Facts[i]
				if g.Line != w.line || g.EndLine != w.end || g.Text != w.text {
					t.Errorf("fact %d = lines %d-%d %q, want %d-%d %q", i, g.Line, g.EndLine, g.Text, w.line, w.end, w.text)
				}
				wantID := w.id
				if wantID == "" {
					wantID = ids.Fact("p", w.text)
				}
				if g.ID != wantID {
					t.Errorf("fact %d id = %q, want %q", i, g.ID, wantID)
				}
				if g.File != ".ledger/facts/p.md" || g.Category != "p" {
					t.Errorf("fact %d file, category = %q, %q", i, g.File, g.Category)
				}
			}
			var lines []int
			for _, p := range f.Problems {
				lines = append(lines, p.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.problems) && !(len(lines) == 0 && len(c.problems) == 0) {
				t.Errorf("problems at lines %v (%+v), want %v", lines, f.Problems, c.problems)
			}
		})
	}
}

func TestCountLines(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2, "a\r\nb\r\n": 2} {
		if got := CountLines([]byte(src)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", src, got, want)
		}
	}
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	l := &Ledger{Files: []*File{
		Parse("a", "a.md", []byte("- same\n- other <!-- id:x1 -->\n- same\n")),
		Parse("b", "b.md", []byte("- copied <!-- id:x1 -->\n- same\n")),
	}}
	d := l.Duplicates()
	if len(d) != 2 {
		t.Fatalf("duplicates = %+v", d)
	}
	if d[0].ID != ids.Fact("a", "same") || len(d[0].Facts) != 2 || d[0].Facts[1].Line != 3 {
		t.Errorf("first duplicate = %+v", d[0])
	}
	if d[1].ID != "x1" || d[1].Facts[1].File != "b.md" {
		t.Errorf("second duplicate = %+v", d[1])
	}
}

// genFacts writes a facts file of about n lines: a heading, some prose and
// facts of one to three lines, a few with explicit ids.
func genFacts(r *rand.Rand, n int) []byte {
	words := strings.Fields("the index is a cache never committed rebuild from files every write is atomic lock the workspace before writing facts outrank tasks in prime output keep ids stable use go-git for reads shell out to git for merges")
	var b strings.Builder
	b.WriteString("# Pitfalls\n\nThings that broke before.\n\n")
	lines := 4
	for i := 0; lines < n; i++ {
		b.WriteString("- ")
		for k := range 3 + r.IntN(14) {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		if i%7 == 0 {
			fmt.Fprintf(&b, " <!-- id:f-x%06d -->", i)
		}
		b.WriteByte('\n')
		lines++
		for range r.IntN(3) {
			b.WriteString("  and a continuation line with more words\n")
			lines++
		}
	}
	return []byte(b.String())
}

func BenchmarkParse800Lines(b *testing.B) {
	src := genFacts(rand.New(rand.NewPCG(1, 2)), 800)
	if got := CountLines(src); got < 800 || got > 803 {
		b.Fatalf("generated %d lines", got)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		f := Parse("pitfalls", "p.md", src)
		if len(f.Problems) > 0 {
			b.Fatal(f.Problems)
		}
	}
}

func TestParseConflictMarkers(t *testing.T) {
	t.Parallel()
	src := "# Invariants\n\n- A fact.\n<<<<<<< HEAD\n- Ours.\n=======\n- Theirs.\r\n>>>>>>> origin/main\n- After.\n"
	f := Parse("invariants", ".ledger/facts/invariants.md", []byte(src))
	var texts []string
	for _, fact := range f.Facts {
		texts = append(texts, fact.Text)
		if fact.ID != ids.Fact("invariants", fact.Text) {
			t.Errorf("fact %q has id %s, want the id it has outside a conflict", fact.Text, fact.ID)
		}
	}
	if got := strings.Join(texts, "|"); got != "A fact.|Ours.|Theirs.|After." {
		t.Errorf("facts = %q, want both sides and no marker text", got)
	}
	if fmt.Sprint(f.ConflictLines) != "[4 6 8]" {
		t.Errorf("ConflictLines = %v, want [4 6 8]", f.ConflictLines)
	}
	if len(f.Problems) != 1 || f.Problems[0].Line != 4 || !f.Problems[0].Conflict || f.Problems[0].Message != ConflictMessage {
		t.Errorf("Problems = %+v, want one conflict problem on line 4", f.Problems)
	}
	var ce *ConflictError
	if err := f.Conflicted(); !errors.As(err, &ce) || ce.Line != 4 || ce.Path != ".ledger/facts/invariants.md" {
		t.Errorf("Conflicted = %v, want a ConflictError at line 4", err)
	}
	if f.Lines != 9 || f.Bytes != len(src) {
		t.Errorf("Lines, Bytes = %d, %d; want the file's own", f.Lines, f.Bytes)
	}
	// A setext heading underline is not a marker.
	if f := Parse("p", "p.md", []byte("Title\n=======\n\n- fact\n")); f.Conflicted() != nil || len(f.Problems) != 0 {
		t.Errorf("a heading underline: %+v", f.Problems)
	}
}
