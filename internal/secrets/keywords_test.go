package secrets

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// keywordTexts are texts for the keyword index: the test secrets, prose,
// every keyword in upper and mixed case, and non-ASCII text.
func keywordTexts() []string {
	texts := []string{"", "a", "The API Token rotates; see AUTH.md.", "Straße KEY ﬁle: İstanbul Kelvin \u212a", factText}
	for _, s := range secretstest.Secrets() {
		texts = append(texts, s.Text, strings.ToUpper(s.Text))
	}
	for i := range rules {
		for _, w := range rules[i].keywords {
			texts = append(texts, "x"+strings.ToUpper(w)+"y", strings.ToUpper(w[:1])+w[1:])
		}
	}
	return texts
}

func TestKeywordIndex(t *testing.T) {
	t.Parallel()
	for i := range rules {
		for _, w := range rules[i].keywords {
			if len(w) < 2 || w != strings.ToLower(w) {
				t.Fatalf("rule %s: keyword %q; the index needs lower-case keywords of two bytes or more", rules[i].id, w)
			}
		}
	}
	set := newRuleSet()
	for _, text := range keywordTexts() {
		var want []int
		lower := strings.ToLower(text)
		for i := range rules {
			if containsAny(lower, rules[i].keywords) {
				want = append(want, i)
			}
		}
		set.reset()
		keywords().match(text, set)
		got := slices.Sorted(slices.Values(set.list))
		if !slices.Equal(got, want) {
			t.Errorf("%q: rules %v, want %v (strings.Contains on the lower-case text)", text, got, want)
		}
	}
}

// TestScanLinesIsScanPerLine: ScanLines finds what Scan finds in each
// line, at the same columns, with the lines counted in the whole text.
func TestScanLinesIsScanPerLine(t *testing.T) {
	t.Parallel()
	var lines []string
	for i, s := range secretstest.Secrets() {
		if strings.Contains(s.Text, "\n") {
			continue
		}
		lines = append(lines, fmt.Sprintf(`{"id":"mc-%d","title":"ordinary words, an API and a key"}`, i),
			fmt.Sprintf(`{"id":"mc-%d","title":"see %s","notes":"x"}`, i, s.Text), "")
	}
	var want []Finding
	for n, line := range lines {
		found, err := Scan(line)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			f.Line = n + 1
			want = append(want, f)
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d findings; the test needs the secrets to be found", len(want))
	}
	got, err := ScanLines(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ScanLines = %v\nwant       %v", got, want)
	}
}
