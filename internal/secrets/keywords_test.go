package secrets

import (
	"encoding/json"
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

// TestScanJSONLinesIsScanPerValue: ScanJSONLines finds what Scan finds in
// each string value, at the column of the file, and not in the keys.
func TestScanJSONLinesIsScanPerValue(t *testing.T) {
	t.Parallel()
	var lines []string
	var want []Finding
	for i, s := range secretstest.Secrets() {
		if strings.Contains(s.Text, "\n") {
			continue
		}
		quoted, err := json.Marshal(s.Text)
		if err != nil {
			t.Fatal(err)
		}
		value := string(quoted[1 : len(quoted)-1]) // as written in the file
		found, err := Scan(s.Text)
		if err != nil || len(found) == 0 {
			t.Fatalf("Scan(%s sample) = %v, %v", s.Kind, found, err)
		}
		if len(found) != 1 || found[0].Line != 1 || strings.Contains(s.Text[:found[0].Column-1], `"`) {
			continue // the test below maps columns of one-line samples without quotes before the secret
		}
		prefix := fmt.Sprintf(`{"id":"mc-%d","comments":[{"author":"codex-agent","text":"`, i)
		lines = append(lines, fmt.Sprintf(`{"id":"mc-%d","author":"codex-agent","title":"ordinary words, an API and a key"}`, i),
			prefix+value+`"}],"notes":"x"}`, "")
		for _, f := range found {
			f.Line, f.Column = len(lines)-1, len(prefix)+f.Column
			want = append(want, f)
		}
	}
	lines = append(lines, "not json "+secretstest.Secrets()[0].Text)
	found, err := Scan(lines[len(lines)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		f.Line = len(lines)
		want = append(want, f)
	}
	got, err := ScanJSONLines(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ScanJSONLines = %v\nwant           %v", got, want)
	}
}

func TestJSONValues(t *testing.T) {
	t.Parallel()
	line := `{"a": "x\"y", "b":["p", 1, ""], "c" : {"d":"q"}}`
	got, ok := jsonValues(line, nil)
	var texts []string
	for _, s := range got {
		texts = append(texts, line[s[0]:s[1]])
	}
	if !ok || !slices.Equal(texts, []string{`x\"y`, "p", "q"}) {
		t.Errorf("values %q, %v; want x\\\"y, p, q", texts, ok)
	}
	if _, ok := jsonValues(`{"a": "unterminated`, nil); ok {
		t.Error("an unterminated string is ok")
	}
}

// TestScanJSONLinesDecodesEscapes: a value is scanned as the text it
// stands for (quotes and newlines escaped in the file are found as the gate
// finds them), and the column points at the secret's first byte as written.
func TestScanJSONLinesDecodesEscapes(t *testing.T) {
	t.Parallel()
	for _, s := range secretstest.Secrets() {
		want, err := Scan(s.Text)
		if err != nil {
			t.Fatal(err)
		}
		quoted, err := json.Marshal("é\u00e9 then " + s.Text)
		if err != nil {
			t.Fatal(err)
		}
		line := `{"id":"mc-1","description":` + strings.Replace(string(quoted), "é", `\u00e9`, 1) + `}`
		got, err := ScanJSONLines(line)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: found %v in the JSON line, want %v", s.Kind, got, want)
			continue
		}
		for i, g := range got {
			if g.RuleID != want[i].RuleID || g.Line != 1 {
				t.Errorf("%s: finding %v, want %s on line 1", s.Kind, g, want[i].RuleID)
			}
			// The secret as written starts at the column: its first
			// bytes are those of the decoded secret's first line.
			lines := strings.Split(s.Text, "\n")
			startText := lines[want[i].Line-1][want[i].Column-1:]
			startText, _, _ = strings.Cut(startText, `"`)
			if n := min(len(startText), 8); !strings.HasPrefix(line[g.Column-1:], startText[:n]) {
				t.Errorf("%s: column %d points at %q, want the secret (%q…)", s.Kind, g.Column, line[g.Column-1:min(len(line), g.Column+7)], startText[:n])
			}
		}
	}
}
