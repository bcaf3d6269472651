package agents

import (
	"strings"
	"testing"
)

func TestUpsert(t *testing.T) {
	t.Parallel()
	block := Block()
	cases := []struct {
		name    string
		in      string
		want    string
		changed bool
	}{
		{"empty file", "", block, true},
		{"appends after a blank line", "# Agents\n\nBe nice.\n", "# Agents\n\nBe nice.\n\n" + block, true},
		{"adds the missing newline", "# Agents", "# Agents\n\n" + block, true},
		{"current block is left alone", "# A\n\n" + block + "\nAfter.\n", "# A\n\n" + block + "\nAfter.\n", false},
		{
			"outdated block is replaced in place",
			"# A\n<!-- memctl:begin v0 -->\nold text\n<!-- memctl:end -->\nAfter.\n",
			"# A\n" + block + "After.\n", true,
		},
		{
			"edited block is refreshed",
			"x\n" + strings.Replace(block, "Start every", "START every", 1) + "y\n",
			"x\n" + block + "y\n", true,
		},
		{
			"CRLF file gets a CRLF block",
			"# A\r\n",
			"# A\r\n\r\n" + strings.ReplaceAll(block, "\n", "\r\n"), true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, changed, err := Upsert([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want || changed != c.changed {
				t.Errorf("Upsert(%q) =\n%q, %v\nwant\n%q, %v", c.in, out, changed, c.want, c.changed)
			}
			if st, _ := Inspect(out); st != Current {
				t.Errorf("after Upsert the block is %v", st)
			}
			again, changed2, _ := Upsert(out)
			if changed2 || string(again) != string(out) {
				t.Errorf("second Upsert changed the file")
			}
		})
	}
}

func TestInspect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want State
		line int
	}{
		{"# nothing\n", Missing, 0},
		{"a\n" + Block(), Current, 2},
		{"a\nb\n<!-- memctl:begin v1 -->\nstale\n<!-- memctl:end -->\n", Outdated, 3},
		{"<!-- memctl:begin v1 -->\nno end\n", Broken, 1},
		{Block() + Block(), Broken, 1},
		{"`<!-- memctl:begin v1 -->` quoted inline is not a marker\n", Missing, 0},
	} {
		st, line := Inspect([]byte(c.in))
		if st != c.want || line != c.line {
			t.Errorf("Inspect(%q) = %v, %d; want %v, %d", c.in, st, line, c.want, c.line)
		}
	}
	if _, _, err := Upsert([]byte("<!-- memctl:begin v1 -->\nno end\n")); err == nil {
		t.Error("Upsert of a broken block did not fail")
	}
}

func TestImportsAgents(t *testing.T) {
	for in, want := range map[string]bool{
		"@AGENTS.md\n":                       true,
		"# Claude\r\n\r\n@AGENTS.md\r\n":     true,
		"See @./AGENTS.md for the memory.\n": true,
		"See @AGENTS.md.\n":                  false, // Claude Code would import "AGENTS.md." — not ours
		"# Claude\nRead AGENTS.md too.\n":    false,
		"@AGENTS.mdx\n":                      false,
		"":                                   false,
	} {
		if got := ImportsAgents([]byte(in)); got != want {
			t.Errorf("ImportsAgents(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestAddImport(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "@AGENTS.md\n",
		"# Claude\n":             "# Claude\n\n@AGENTS.md\n",
		"# Claude":               "# Claude\n\n@AGENTS.md\n",
		"# Claude\r\nMine.\r\n":  "# Claude\r\nMine.\r\n\r\n@AGENTS.md\r\n",
		"# Claude\r\nNo newline": "# Claude\r\nNo newline\r\n\r\n@AGENTS.md\r\n",
	} {
		got := string(AddImport([]byte(in)))
		if got != want {
			t.Errorf("AddImport(%q) = %q, want %q", in, got, want)
		}
		if !ImportsAgents([]byte(got)) {
			t.Errorf("AddImport(%q) = %q does not import AGENTS.md", in, got)
		}
	}
}
