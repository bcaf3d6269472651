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

func TestFuseIsReciprocalRankFusion(t *testing.T) {
	t.Parallel()
	words := []index.Hit{{ID: "a", Score: 9}, {ID: "b", Score: 5}}
	dense := []index.Hit{{ID: "b", Score: 0.9}, {ID: "c", Score: 0.5}}
	o := Options{}
	o.defaults()
	o.DenseWeight = 0.5
	got := map[string]fusedHit{}
	for _, f := range fuse(words, dense, o) {
		got[f.id] = f
	}
	for id, want := range map[string]float64{"a": 1.0 / 61, "b": 1.0/62 + 0.5/61, "c": 0.5 / 62} {
		if math.Abs(got[id].score-want) > 1e-12 {
			t.Errorf("%s: %g, want %g", id, got[id].score, want)
		}
	}
	if got["a"].dense != nil || *got["a"].bm25 != 9 || *got["c"].dense != 0.5 {
		t.Errorf("per-ranking scores wrong: %+v", got)
	}
}

func TestPriors(t *testing.T) {
	t.Parallel()
	o := Options{Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	o.defaults()
	if p := prior(index.Meta{Kind: "fact", Approved: true}, o); p != 1.05 {
		t.Errorf("approved fact prior %g", p)
	}
	if p := prior(index.Meta{Kind: "task"}, o); p != 1 {
		t.Errorf("task prior %g", p)
	}
	run := index.Meta{Kind: "run", Created: o.Now.Add(-30 * 24 * time.Hour)}
	if p := prior(run, o); math.Abs(p-0.5) > 1e-9 {
		t.Errorf("a run one half-life old: prior %g, want .5", p)
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
