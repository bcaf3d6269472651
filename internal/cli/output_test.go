package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// columnStarts is the display column at which each cell of a table line
// starts: the cells are separated by two spaces or more.
func columnStarts(line string) []int {
	var starts []int
	col, spaces := 0, 2
	for _, r := range line {
		if r == ' ' {
			spaces++
		} else {
			if spaces >= 2 {
				starts = append(starts, col)
			}
			spaces = 0
		}
		col += ansi.StringWidth(string(r))
	}
	return starts
}

func TestTableAlignsByDisplayWidth(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	tb := newTable(&Env{Out: &out, StdoutTTY: true}, "ID", "ASSIGNEE", "TITLE")
	tb.row("a-1", "-", "ascii")
	tb.row("a-2", "山田太郎", "wide")
	tb.row("a-3", "José", "accented")
	tb.row("a-4", "e\u0301mile", "a combining accent")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := columnStarts(lines[0])
	for _, l := range lines[1:] {
		if got := columnStarts(l); !slices.Equal(got, want) {
			t.Errorf("columns of %q start at %v, the header's at %v:\n%s", l, got, want, out.String())
		}
	}
}

func TestTableClipsTheLastColumnToTheTerminal(t *testing.T) {
	t.Parallel()
	titles := []string{
		"Short",
		"Café crème brûlée with naïve résumé and a very long tail of words",
		"修复解析器中的错误并添加测试用例以及更多的文字内容和说明",
		"A title from a pull with \x1b[31m an escape and \u202e an override in it, long",
	}
	for _, width := range []int{40, 60, 80} {
		var out bytes.Buffer
		tb := newTable(&Env{Out: &out, StdoutTTY: true, Width: width}, "ID", "TITLE").clipToWidth()
		for _, title := range titles {
			tb.row("a-1", title)
		}
		if err := tb.flush(); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: %q is %d columns wide", width, l, w)
			}
			if !utf8.ValidString(l) {
				t.Errorf("width %d: %q splits a character", width, l)
			}
			if i == 0 {
				continue
			}
			full := visibleLine(titles[i-1])
			got := strings.TrimSpace(l[strings.Index(l, "  "):])
			if cut, ok := strings.CutSuffix(got, "…"); ok {
				if !strings.HasPrefix(full, cut) {
					t.Errorf("width %d: %q is not a prefix of %q", width, cut, full)
				}
				// The escapes visibleLine writes are whole or absent.
				for _, esc := range []string{`\x1b`, `\u202e`} {
					for k := 1; k < len(esc); k++ {
						if strings.HasSuffix(cut, esc[:k]) && strings.Contains(full, esc) && strings.Index(full[len(cut)-k:], esc) == 0 {
							t.Errorf("width %d: %q ends inside the escape %s", width, got, esc)
						}
					}
				}
			} else if got != full {
				t.Errorf("width %d: %q, want %q", width, got, full)
			}
		}
	}
}
