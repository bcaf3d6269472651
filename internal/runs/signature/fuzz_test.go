package signature

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNormalize checks what holds for any text: no panic, and a normalised
// text that is valid UTF-8 without control characters (a newline between
// lines aside), blank lines, trailing spaces or a line repeated, whose
// hash is Of's; the same text gives the same signature. Normalize is not
// idempotent on every text ("/site-packages/0" gives "site-packages/0",
// whose 0 a second pass takes for a number), so that is checked on real
// outputs only (TestNormalizeIsStable).
func FuzzNormalize(f *testing.F) {
	for _, text := range benchTexts() {
		f.Add(text)
	}
	for _, s := range []string{"", "\x1b[", "0x", "2026-11-23T", "Nov 23 ", "Mon, 23 Nov", "/", "~/", "C:\\", "file:///",
		"1.", "1m", "1 s", "a\r\rb", "goroutine 1 [x]:\nf()\n\tx.go:1 +0x1", "  File \"x\", line 1\n", "   0: a::b\n at x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sig := Of(text)
		n := sig.Text
		if !utf8.ValidString(n) {
			t.Fatalf("not UTF-8: %q", n)
		}
		for _, r := range n {
			if r != '\n' && (r < 0x20 || r == 0x7f || dropped(r)) {
				t.Fatalf("control character %U in %q", r, n)
			}
		}
		if n != "" {
			lines := strings.Split(n, "\n")
			for i, l := range lines {
				if strings.TrimSpace(l) == "" || strings.HasSuffix(l, " ") {
					t.Fatalf("line %d blank or with trailing space: %q", i+1, n)
				}
				if i > 0 && l == lines[i-1] {
					t.Fatalf("line %d repeated: %q", i+1, n)
				}
			}
		}
		sum := sha256.Sum256([]byte(n))
		if want := hex.EncodeToString(sum[:])[:HashLen]; sig.Hash != want {
			t.Fatalf("hash %s, want %s", sig.Hash, want)
		}
		if again := Of(text); again != sig {
			t.Fatalf("not deterministic: %+v then %+v", sig, again)
		}
	})
}
