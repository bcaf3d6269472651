package cli

import (
	"testing"
	"unicode/utf8"
)

func TestHighlight(t *testing.T) {
	t.Parallel()
	tty, pipe := &Env{StdoutTTY: true}, &Env{}
	for _, c := range []struct {
		name, s string
		words   []string
		want    string
	}{
		{"a matched word is bold", "Run the tests first", []string{"tests"}, "Run the \x1b[1mtests\x1b[0m first"},
		{"case is ignored and kept", "TESTS and Tests", []string{"tests"}, "\x1b[1mTESTS\x1b[0m and \x1b[1mTests\x1b[0m"},
		{"only at the start of a word", "contests test", []string{"test"}, "contests \x1b[1mtest\x1b[0m"},
		// Their lower case is longer (İ) or shorter (K, the Kelvin sign)
		// in bytes than they are: indexing s by offsets in its lower case
		// went out of range.
		{"after a letter that grows in lower case", "İstanbul test", []string{"test"}, "İstanbul \x1b[1mtest\x1b[0m"},
		{"after a letter that shrinks in lower case", "Kelvin \u212a tests ok", []string{"tests"}, "Kelvin \u212a \x1b[1mtests\x1b[0m ok"},
		{"a multibyte word", "über Über", []string{"über"}, "\x1b[1müber\x1b[0m \x1b[1mÜber\x1b[0m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := highlight(tty, c.s, c.words)
			if got != c.want {
				t.Errorf("highlight(%q, %q) = %q, want %q", c.s, c.words, got, c.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("highlight(%q) split a character: %q", c.s, got)
			}
			if plain := highlight(pipe, c.s, c.words); plain != c.s {
				t.Errorf("piped, highlight(%q) = %q, want it unchanged", c.s, plain)
			}
		})
	}
}
