package ledger

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// factText makes a fact's text from fuzzed bytes: letters, digits, spaces
// and sentence punctuation, as a reviewer would write, never empty.
func factText(s string) string {
	var b strings.Builder
	b.WriteString("Fact")
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '.' || r == ',' {
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// factLines are the bytes of a fact's lines in src, without their line
// endings (removing the last fact of a file without a final newline takes
// the newline of the line before).
func factLines(src []byte, f Fact) string {
	lines := rawLines(src)[f.Line-1 : f.EndLine]
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
	}
	return string(bytes.Join(out, []byte("\n")))
}

func factKey(f Fact) string { return f.ID + "\x00" + f.Text }

// FuzzEdit: Parse never panics, and on a file it reads without conflict
// markers, AppendFact, ReplaceFact and RemoveFact give a file whose facts
// are the old ones with the one edit made: the others keep id, text and
// bytes.
func FuzzEdit(f *testing.F) {
	f.Add([]byte(prose), "Third fact", uint8(0), uint8(0))
	f.Add([]byte(prose), "Reworded", uint8(1), uint8(1))
	f.Add([]byte(prose), "", uint8(0), uint8(2))
	f.Add([]byte("# P\r\n\r\n- a\r\n- b <!-- id:b -->\r\n"), "crlf", uint8(1), uint8(1))
	f.Add([]byte("1. one <!-- id:a -->\n2. two\n"), "uno", uint8(0), uint8(1))
	f.Add([]byte("- a\n\n"), "x", uint8(0), uint8(0))
	f.Add([]byte("# P\n\n- a"), "no final newline", uint8(0), uint8(2))
	f.Add([]byte("- a\n<<<<<<< ours\n- b\n=======\n- c\n>>>>>>> theirs\n"), "m", uint8(0), uint8(0))
	f.Add([]byte("- \xff\n"), "bad", uint8(0), uint8(0))
	f.Add([]byte("- a\n  - nested\n    - deeper\n      > quote\n- b\n"), "y", uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, src []byte, text string, pick, op uint8) {
		file := Parse("pitfalls", "p.md", src)
		for _, p := range file.Problems {
			if p.Line < 1 || p.Line > max(file.Lines, 1) {
				t.Fatalf("problem on line %d of a %d-line file: %s", p.Line, file.Lines, p.Message)
			}
		}
		for _, fa := range file.Facts {
			if fa.Line < 1 || fa.EndLine < fa.Line || fa.EndLine > file.Lines {
				t.Fatalf("fact %q on lines %d-%d of a %d-line file", fa.Text, fa.Line, fa.EndLine, file.Lines)
			}
		}
		if file.Conflicted() != nil || !readableFile(file) {
			return // writers refuse such a file
		}
		text = factText(text)
		id := "f-fuzz"
		for taken := true; taken; {
			taken = false
			for _, fa := range file.Facts {
				if fa.ID == id {
					id += "x"
					taken = true
				}
			}
		}
		want := map[string]int{}
		for _, fa := range file.Facts {
			want[factKey(fa)]++
		}
		var out []byte
		var edited Fact
		switch op % 3 {
		case 0:
			out = AppendFact(src, file, text, id)
			want[factKey(Fact{ID: id, Text: text})]++
		case 1, 2:
			if len(file.Facts) == 0 {
				return
			}
			edited = file.Facts[int(pick)%len(file.Facts)]
			want[factKey(edited)]--
			if op%3 == 1 {
				out = ReplaceFact(src, edited, text, edited.ID)
				want[factKey(Fact{ID: edited.ID, Text: text})]++
			} else {
				out = RemoveFact(src, edited)
			}
		}
		after := Parse("pitfalls", "p.md", out)
		got := map[string]int{}
		for _, fa := range after.Facts {
			got[factKey(fa)]++
		}
		for k, n := range want {
			if got[k] != n {
				t.Fatalf("op %d: fact %q %d times, want %d\nbefore %q\nafter  %q", op%3, k, got[k], n, src, out)
			}
		}
		for k, n := range got {
			if want[k] != n {
				t.Fatalf("op %d: fact %q %d times, want %d\nbefore %q\nafter  %q", op%3, k, n, want[k], src, out)
			}
		}
		// The facts not edited keep their bytes.
		old := map[string][]string{}
		for _, fa := range file.Facts {
			if fa != edited {
				old[factKey(fa)] = append(old[factKey(fa)], factLines(src, fa))
			}
		}
		for _, fa := range after.Facts {
			if prev, ok := old[factKey(fa)]; ok && len(prev) > 0 {
				if got := factLines(out, fa); !containsString(prev, got) {
					t.Fatalf("op %d: fact %q rewritten: %q, was %q", op%3, fa.Text, got, prev)
				}
			}
		}
	})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readableFile: Parse could read the file's text (no NUL byte, valid UTF-8).
func readableFile(f *File) bool {
	for _, p := range f.Problems {
		if strings.Contains(p.Message, "NUL byte") || strings.Contains(p.Message, "UTF-8") {
			return false
		}
	}
	return true
}
