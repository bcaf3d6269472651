package secrets

import "testing"

// TestReplaceMergesPartialOverlaps: two secrets that overlap without one
// holding the other are replaced by one marker over both, so no piece of
// either is left.
func TestReplaceMergesPartialOverlaps(t *testing.T) {
	t.Parallel()
	text := "a bcdef g"
	a, b := &rules[0], &rules[1]
	found := []finding{
		{rule: b, offset: 4, secretAt: 4, secret: "def", matchEnd: 7},
		{rule: a, offset: 2, secretAt: 2, secret: "bcd", matchEnd: 5},
	}
	out, done := replace(text, found)
	if want := "a [REDACTED:" + a.id + "] g"; out != want {
		t.Errorf("replace = %q, want %q", out, want)
	}
	if len(done) != 1 || done[0].RuleID != a.id || done[0].Column != 3 {
		t.Errorf("replaced %+v, want one finding of %s at column 3", done, a.id)
	}
	// A finding without a secret replaces its whole match.
	out, _ = replace("x token=abc y", []finding{{rule: a, offset: 2, secretAt: 8, secret: "", matchEnd: 11}})
	if want := "x [REDACTED:" + a.id + "] y"; out != want {
		t.Errorf("replace = %q, want %q", out, want)
	}
}
