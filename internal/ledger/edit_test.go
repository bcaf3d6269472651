package ledger

import (
	"strings"
	"testing"
)

const prose = "# Pitfalls\n\nMistakes made here before.\n\n- First fact.\n- Second fact\n  spans two lines. <!-- id:two -->\n\nClosing prose stays.\n"

func mustFact(t *testing.T, src, id string) Fact {
	t.Helper()
	for _, f := range Parse("pitfalls", "p.md", []byte(src)).Facts {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("fact %q not found in %q", id, src)
	return Fact{}
}

func TestReplaceFactKeepsTheRestOfTheFile(t *testing.T) {
	t.Parallel()
	got := string(ReplaceFact([]byte(prose), mustFact(t, prose, "two"), "Second fact, reworded.", "two"))
	want := strings.Replace(prose, "- Second fact\n  spans two lines. <!-- id:two -->\n", "- Second fact, reworded. <!-- id:two -->\n", 1)
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if f := mustFact(t, got, "two"); f.Text != "Second fact, reworded." {
		t.Errorf("reparsed text = %q", f.Text)
	}
}

func TestReplaceKeepsMarkerAndIndentsContinuations(t *testing.T) {
	t.Parallel()
	src := "1. one <!-- id:a -->\n2. two\n"
	got := string(ReplaceFact([]byte(src), mustFact(t, src, "a"), "uno\ndos", "a"))
	if want := "1. uno\n   dos <!-- id:a -->\n2. two\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRemoveFact(t *testing.T) {
	t.Parallel()
	got := string(RemoveFact([]byte(prose), mustFact(t, prose, "two")))
	if want := strings.Replace(prose, "- Second fact\n  spans two lines. <!-- id:two -->\n", "", 1); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Without the item (a heading, which takes no lazy continuation), the
	// paragraph after the list would become the first item's lazy
	// continuation, changing that fact.
	src := "- keep <!-- id:k -->\n- # Heading <!-- id:g -->\nAfter the list.\n"
	got = string(RemoveFact([]byte(src), mustFact(t, src, "g")))
	if want := "- keep <!-- id:k -->\n\nAfter the list.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A heading after a sibling item whose content sits one column further
// right than the first's is outside the list; without that sibling it
// would be in the first item, blank line or not, so an empty comment ends
// the list in the removed item's place.
func TestRemoveFactEndsTheListWhereABlankIsNotEnough(t *testing.T) {
	t.Parallel()
	src := "* keep <!-- id:k -->\n * go <!-- id:g -->\n  # Heading\n"
	if f := mustFact(t, src, "k"); f.Text != "keep" {
		t.Fatalf("the test needs the heading outside the list: %q", f.Text)
	}
	got := string(RemoveFact([]byte(src), mustFact(t, src, "g")))
	if want := "* keep <!-- id:k -->\n<!-- -->\n  # Heading\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAppendFact(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want string }{
		{"after facts", "# P\n\n- a\n", "# P\n\n- a\n- b <!-- id:x -->\n"},
		{"after prose gets a blank line", prose, prose + "\n- b <!-- id:x -->\n"},
		{"after a heading only", "# P\n\nWhat goes here.\n", "# P\n\nWhat goes here.\n\n- b <!-- id:x -->\n"},
		{"empty file", "", "- b <!-- id:x -->\n"},
		{"no final newline", "# P\n\n- a", "# P\n\n- a\n- b <!-- id:x -->"},
		{"CRLF", "# P\r\n\r\n- a\r\n", "# P\r\n\r\n- a\r\n- b <!-- id:x -->\r\n"},
		{"trailing blank lines kept", "- a\n\n", "- a\n\n- b <!-- id:x -->\n"},
		{"open fence is closed", "```", "```\n```\n\n- b <!-- id:x -->"},
		{"open tilde fence keeps its length", "- a\n\n~~~~ go\ncode\n", "- a\n\n~~~~ go\ncode\n~~~~\n\n- b <!-- id:x -->\n"},
		{"open indented fence", "  ````\n  x\n", "  ````\n  x\n````\n\n- b <!-- id:x -->\n"},
		{"closed fence is left alone", "```\ncode\n```\n", "```\ncode\n```\n\n- b <!-- id:x -->\n"},
		{"open HTML comment is closed", "- a\n\n<!-- notes\n", "- a\n\n<!-- notes\n-->\n\n- b <!-- id:x -->\n"},
		{"open pre is closed", "<PRE>\nx\n", "<PRE>\nx\n</pre>\n\n- b <!-- id:x -->\n"},
		{"a line that only looks blank ends no HTML block", "<div>\n\v\n", "<div>\n\v\n\n- b <!-- id:x -->\n"},
		{"open CDATA is closed", "<![CDATA[\nx\n", "<![CDATA[\nx\n]]>\n\n- b <!-- id:x -->\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Parse("p", "p.md", []byte(c.src))
			got := string(AppendFact([]byte(c.src), f, "b", "x"))
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if !strings.HasPrefix(got, strings.TrimSuffix(c.src, "\n")) && c.src != "" {
				t.Errorf("the original bytes are not a prefix of the result")
			}
			if g := Parse("p", "p.md", []byte(got)); len(g.Facts) != len(f.Facts)+1 || g.Facts[len(g.Facts)-1].ID != "x" {
				t.Errorf("appended fact does not parse as a fact: %+v", g.Facts)
			}
		})
	}
}

func TestEditsOnCRLFAndNoFinalNewline(t *testing.T) {
	t.Parallel()
	src := "# P\r\n\r\n- keep\r\n- change <!-- id:c -->\r\n- last <!-- id:l -->"
	got := string(ReplaceFact([]byte(src), mustFact(t, src, "c"), "changed", "c"))
	if want := "# P\r\n\r\n- keep\r\n- changed <!-- id:c -->\r\n- last <!-- id:l -->"; got != want {
		t.Errorf("replace: got %q, want %q", got, want)
	}
	got = string(ReplaceFact([]byte(src), mustFact(t, src, "l"), "final", "l"))
	if want := "# P\r\n\r\n- keep\r\n- change <!-- id:c -->\r\n- final <!-- id:l -->"; got != want {
		t.Errorf("replace last: got %q, want %q", got, want)
	}
	got = string(RemoveFact([]byte(src), mustFact(t, src, "l")))
	if want := "# P\r\n\r\n- keep\r\n- change <!-- id:c -->"; got != want {
		t.Errorf("remove last: got %q, want %q", got, want)
	}
}

func TestScanMarker(t *testing.T) {
	for _, tc := range []struct {
		line       string
		start, end int
		ok         bool
	}{
		{"- fact", 0, 1, true},
		{"  * fact", 2, 3, true},
		{"+ fact", 0, 1, true},
		{"12. fact", 0, 3, true},
		{"3) fact", 0, 2, true},
		{"   continued text", 3, 3, false},
		{"12 apples", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, end, ok := scanMarker(tc.line)
		if start != tc.start || end != tc.end || ok != tc.ok {
			t.Errorf("scanMarker(%q) = %d, %d, %v; want %d, %d, %v", tc.line, start, end, ok, tc.start, tc.end, tc.ok)
		}
	}
}

func TestMarkerOf(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"- a":         "- ",
		"  * a":       "  * ",
		"1.  a":       "1.  ",
		"*\ta":        "*   ", // the tab stands for three columns
		"10.\ta":      "10. ",
		"-     code":  "- ", // content that is indented code starts one space in
		"-":           "- ",
		"-   ":        "- ",
		"no marker":   "- ",
		"2)\t\tdeep":  "2) ",
		"+    four a": "+    ",
	} {
		if got := markerOf(line); got != want {
			t.Errorf("markerOf(%q) = %q, want %q", line, got, want)
		}
	}
}
