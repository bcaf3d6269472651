package recall

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/index"
)

func TestScoreMatchesTheReferenceFormulas(t *testing.T) {
	t.Parallel()
	var m Metrics
	// Two relevant documents, found at ranks 2 and 7.
	score(&m, []string{"x", "a", "y", "z", "w", "v", "b"}, map[string]float64{"a": 1, "b": 1, "never": 0})
	wantNDCG := (1/math.Log2(3) + 1/math.Log2(8)) / (1 + 1/math.Log2(3))
	if m.Recall5 != 0.5 || m.Recall10 != 1 || math.Abs(m.NDCG10-wantNDCG) > 1e-12 || m.MRR != 0.5 {
		t.Errorf("metrics %+v, want recall@5 .5, recall@10 1, ndcg %.6f, mrr .5", m, wantNDCG)
	}
	// Graded relevance: gain 2^rel - 1.
	m = Metrics{}
	score(&m, []string{"b", "a"}, map[string]float64{"a": 2, "b": 1})
	want := (1 + 3/math.Log2(3)) / (3 + 1/math.Log2(3))
	if math.Abs(m.NDCG10-want) > 1e-12 {
		t.Errorf("graded ndcg %g, want %g", m.NDCG10, want)
	}
	// Nothing relevant found, and a query with no relevant document.
	m = Metrics{}
	score(&m, []string{"x"}, map[string]float64{"a": 1})
	score(&m, []string{"x"}, map[string]float64{})
	if m != (Metrics{}) {
		t.Errorf("metrics %+v, want zeros", m)
	}
}

func TestEvaluateTinyBenchmark(t *testing.T) {
	t.Parallel()
	rep, err := Evaluate(context.Background(), filepath.Join("..", "..", "testdata", "eval", "tiny"), EvalOptions{GroupBy: "group", TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The numbers worked out by hand in testdata/eval/tiny/README.md.
	if rep.Queries != 3 || rep.Groups != 2 || rep.Docs != 8 {
		t.Errorf("report %+v", rep)
	}
	if got, want := rep.Modes[ModeBM25], (Metrics{Recall5: 0.8333, Recall10: 0.8333, NDCG10: 0.871, MRR: 1}); got != want {
		t.Errorf("bm25 %+v, want %+v", got, want)
	}
	for _, m := range []string{ModeDense, ModeHybrid} {
		if got := rep.Modes[m]; got.Recall10 < rep.Modes[ModeBM25].Recall10 {
			t.Errorf("%s recall@10 %g is below bm25's: it should find d5 by meaning", m, got.Recall10)
		}
	}
}

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
