package cli

import "testing"

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ name, in, block, line string }{
		{"plain text is unchanged", "Use `-p 1` and _care_ [x](y) <b>", "Use `-p 1` and _care_ [x](y) <b>", "Use `-p 1` and _care_ [x](y) <b>"},
		{"accents are unchanged", "café ✓", "café ✓", "café ✓"},
		{"layout kept in blocks, escaped in lines", "a\n\tb", "a\n\tb", `a\n\tb`},
		{"ANSI escape shown", "red \x1b[31mX\x1b[0m", `red \x1b[31mX\x1b[0m`, `red \x1b[31mX\x1b[0m`},
		{"carriage return shown", "ok\rEVIL", `ok\rEVIL`, `ok\rEVIL`},
		{"bell and DEL shown", "\a\x7f", `\x07\x7f`, `\x07\x7f`},
		{"C1 CSI shown", "a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
		{"bidi override shown", "abc\u202edef", `abc\u202edef`, `abc\u202edef`},
		{"invalid UTF-8 shown as bytes", "a\xffb", `a\xffb`, `a\xffb`},
		{"layout after an accent", "é\nrow2\tx", "é\nrow2\tx", `é\nrow2\tx`},
		{"escape after an accent", "café\x1b[2J", `café\x1b[2J`, `café\x1b[2J`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := visible(tc.in); got != tc.block {
				t.Errorf("visible(%q) = %q, want %q", tc.in, got, tc.block)
			}
			if got := visibleLine(tc.in); got != tc.line {
				t.Errorf("visibleLine(%q) = %q, want %q", tc.in, got, tc.line)
			}
		})
	}
}
