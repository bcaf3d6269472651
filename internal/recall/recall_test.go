package recall

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/index"
)

func TestPriors(t *testing.T) {
	t.Parallel()
	o := Options{Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	o.defaults()
	if a, g := priors(index.Meta{Kind: "fact", Approved: true}, o); a != 1.05 || g != 1 {
		t.Errorf("approved fact priors %g, %g", a, g)
	}
	if a, g := priors(index.Meta{Kind: "task"}, o); a != 1 || g != 1 {
		t.Errorf("task priors %g, %g", a, g)
	}
	run := index.Meta{Kind: "run", Created: o.Now.Add(-30 * 24 * time.Hour)}
	if a, g := priors(run, o); a != 1 || math.Abs(g-0.5) > 1e-9 {
		t.Errorf("a run one half-life old: priors %g, %g, want 1, .5", a, g)
	}
}

func TestSnippetCentresOnTheMatch(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("filler words here ", 30) + "the PostgreSQL connection pool leaks " + strings.Repeat("more words ", 30)
	s, matched := snippet(text, queryWords("postgresql pool"), 120)
	if !strings.Contains(s, "PostgreSQL connection pool") || !strings.HasPrefix(s, "…") || len([]rune(s)) > 121 {
		t.Errorf("snippet %q", s)
	}
	if strings.Join(matched, ",") != "postgresql,pool" {
		t.Errorf("matched %v", matched)
	}
	short, _ := snippet("Short\n  text.", nil, 120)
	if short != "Short text." {
		t.Errorf("short snippet %q", short)
	}
}

func TestCheckQueryRefusesBlankQueries(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"", " ", "\t\n "} {
		if err := CheckQuery(q); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("CheckQuery(%q) = %v, want ErrEmptyQuery", q, err)
		}
	}
	if err := CheckQuery(" which db "); err != nil {
		t.Errorf("CheckQuery of words = %v", err)
	}
}

// TestSnippetAfterLettersThatChangeLengthInLowerCase: İ is longer in
// lower case than it is, ẞ shorter; the match found in the lower-cased text
// is centred on in the text itself.
func TestSnippetAfterLettersThatChangeLengthInLowerCase(t *testing.T) {
	t.Parallel()
	for _, letter := range []string{"İ", "ẞ"} {
		text := strings.Repeat(letter+" ", 150) + "the PostgreSQL connection pool leaks " + strings.Repeat("more words ", 30)
		s, _ := snippet(text, queryWords("postgresql pool"), 120)
		if !strings.Contains(s, "PostgreSQL connection pool") || !utf8.ValidString(s) {
			t.Errorf("after %s: snippet %q", letter, s)
		}
	}
}
