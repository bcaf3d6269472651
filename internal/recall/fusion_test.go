package recall

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// fusionIndex is an index of a few short documents, by the built-in
// embedder.
func fusionIndex(t *testing.T, bodies map[string]string) *index.Index {
	t.Helper()
	ctx := context.Background()
	x, err := index.Open(ctx, index.Options{Dir: filepath.Join(t.TempDir(), "x"), Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	var docs memSource
	for id, b := range bodies {
		docs = append(docs, index.Doc{ID: id, Kind: "doc", Ref: id, Body: b, File: "corpus.jsonl", Priority: -1})
	}
	dir := t.TempDir() // memSource's one file must exist to be read
	if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := x.Update(ctx, dir, []index.Source{docs}); err != nil || st.Docs != len(bodies) {
		t.Fatalf("update: %+v, %v", st, err)
	}
	return x
}

var fusionDocs = map[string]string{
	"paint":  "Melanie painted a sunrise over the lake last summer.",
	"canvas": "She bought a new canvas and brushes for her art class.",
	"dog":    "Caroline adopted a puppy from the shelter in May.",
	"work":   "The quarterly report is due on Friday.",
	"lake":   "They went camping by the lake with the kids.",
	"noise1": "Nothing here is about anything in particular.",
	"noise2": "Another sentence that shares no words at all.",
}

// TestHybridScoresAreTheWeightedSumOfScaledSignals: every result's score
// is Σ weight × scaled signal, each signal is in [0, 1], the best BM25
// candidate scales to 1, and a document no word matched has BM25 0.
func TestHybridScoresAreTheWeightedSumOfScaledSignals(t *testing.T) {
	t.Parallel()
	x := fusionIndex(t, fusionDocs)
	ans, err := Search(context.Background(), x, "when did Melanie paint the lake", Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Mode != ModeHybrid || len(ans.Results) == 0 || ans.Results[0].ID != "paint" {
		t.Fatalf("mode %s, results %+v: want the painting first", ans.Mode, ans.Results)
	}
	topBM25 := 0
	for _, r := range ans.Results {
		e := r.Scores.Explain
		if e.BM25 == nil || e.Dense == nil || e.Match == nil {
			t.Fatalf("%s: a signal is missing: %+v", r.ID, e)
		}
		sum := 0.0
		for _, s := range []*Signal{e.BM25, e.Dense, e.Match} {
			if s.Norm < 0 || s.Norm > 1 {
				t.Errorf("%s: scaled score %g outside [0, 1]", r.ID, s.Norm)
			}
			sum += s.Weight * s.Norm
		}
		if math.Abs(sum-e.Relevance) > 1e-5 || math.Abs(e.Relevance*e.Approved*e.Age-r.Score) > 1e-5 {
			t.Errorf("%s: Σ weight × scaled = %g, relevance %g, score %g", r.ID, sum, e.Relevance, r.Score)
		}
		if e.BM25.Rank == 1 {
			topBM25++
			if e.BM25.Norm != 1 {
				t.Errorf("%s: the best BM25 score scales to %g, want 1", r.ID, e.BM25.Norm)
			}
		}
		if e.BM25.Rank == 0 && (e.BM25.Raw != 0 || e.BM25.Norm != 0) {
			t.Errorf("%s: not matched by words but BM25 %+v", r.ID, e.BM25)
		}
		if *r.Scores.Match != e.Match.Raw {
			t.Errorf("%s: scores.match %g, explain %g", r.ID, *r.Scores.Match, e.Match.Raw)
		}
	}
	if topBM25 != 1 {
		t.Errorf("%d results have BM25 rank 1", topBM25)
	}
	if w := ans.Results[0].Scores.Explain.Match.Weight; w != DefaultWeights.Match {
		t.Errorf("match weight %g, want the default %g", w, DefaultWeights.Match)
	}
}

// TestMatcherMatchesWordsByMeaning: a query word found as such counts 1,
// a word of like meaning counts its cosine, stop words and the letters of
// contractions do not count, and rare words weigh more.
func TestMatcherMatchesWordsByMeaning(t *testing.T) {
	t.Parallel()
	x := fusionIndex(t, fusionDocs)
	ctx := context.Background()
	m, err := newMatcher(ctx, x, "When did Melanie's dog paint?")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.words; len(got) != 3 || got[0] != "melanie" || got[1] != "dog" || got[2] != "paint" {
		t.Fatalf("content words %q, want melanie, dog, paint", got)
	}
	if s := m.score("melanie dog paint"); math.Abs(s-1) > 1e-9 {
		t.Errorf("all words present: %g, want 1", s)
	}
	b := m.best("puppy painted")
	if b[1] <= 0.5 || b[1] >= 1 || b[2] <= 0.5 || b[2] >= 1 || b[0] >= 0.3 {
		t.Errorf("best matches of \"puppy painted\": %v; want dog and paint by meaning, melanie hardly", b)
	}
	if s, near := m.score("the and of"), m.score("puppy painted"); s >= near {
		t.Errorf("stop words %g score as high as words of like meaning %g", s, near)
	}
	if far := m.best("spreadsheet")[1]; far >= b[1] {
		t.Errorf("dog~spreadsheet %g is not below dog~puppy %g", far, b[1])
	}
	// Melanie is in one document of seven, paint in none: both rare; dog
	// in none. A word in every document would weigh least.
	x2 := fusionIndex(t, map[string]string{"a": "lake one", "b": "lake two", "c": "lake three sunrise"})
	m2, err := newMatcher(ctx, x2, "lake sunrise")
	if err != nil {
		t.Fatal(err)
	}
	if !(m2.idf[1] > m2.idf[0]) {
		t.Errorf("idf of sunrise (1 document) %g is not above lake's (3) %g", m2.idf[1], m2.idf[0])
	}
	if s, e := m2.score("sunrise"), m2.score("lake"); !(s > e) {
		t.Errorf("the rare word's match %g is not worth more than the common one's %g", s, e)
	}
	empty, err := newMatcher(ctx, x2, "the of and")
	if err != nil {
		t.Fatal(err)
	}
	if s := empty.score("lake"); s != 0 {
		t.Errorf("a query of stop words scores %g", s)
	}
}

// TestSingleModesUseOneSignal: bm25 and dense rank by their own score,
// the others absent.
func TestSingleModesUseOneSignal(t *testing.T) {
	t.Parallel()
	x := fusionIndex(t, fusionDocs)
	for _, mode := range []string{ModeBM25, ModeDense} {
		ans, err := Search(context.Background(), x, "lake", Options{Mode: mode, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range ans.Results {
			e := r.Scores.Explain
			if e.Match != nil || r.Scores.Match != nil || (mode == ModeBM25) != (e.Dense == nil) || (mode == ModeDense) != (e.BM25 == nil) {
				t.Errorf("%s: result %d has signals %+v", mode, i, e)
			}
			s := e.BM25
			if mode == ModeDense {
				s = e.Dense
			}
			if s.Rank != i+1 || s.Weight != 1 {
				t.Errorf("%s: result %d: %+v", mode, i, s)
			}
		}
	}
}

// TestDenseModeScoresArePositive: a cosine can be negative, and the priors
// multiply: an approved text must still rank above an unapproved one of
// equal cosine, so dense mode scores (c + 1) / 2.
func TestDenseModeScoresArePositive(t *testing.T) {
	t.Parallel()
	x := fusionIndex(t, fusionDocs)
	ans, err := Search(context.Background(), x, "zebra giraffe elephant", Options{Mode: ModeDense, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	negative := 0
	for _, r := range ans.Results {
		d := r.Scores.Explain.Dense
		if d.Raw < 0 {
			negative++
		}
		if r.Score < 0 || math.Abs(d.Norm-(d.Raw+1)/2) > 1e-5 {
			t.Errorf("%s: cosine %g, scaled %g, score %g", r.ID, d.Raw, d.Norm, r.Score)
		}
	}
	if negative == 0 {
		t.Log("no negative cosine among the results: the case is not exercised")
	}
	if _, err := Search(context.Background(), x, "lake", Options{Mode: "fuzzy"}); err == nil {
		t.Error("an unknown mode searched")
	}
}

// TestStopWordsFindNothing: a question of stop words only matches no word,
// leaves none to match, and the dense ranking alone would list anything.
func TestStopWordsFindNothing(t *testing.T) {
	t.Parallel()
	x := fusionIndex(t, fusionDocs)
	ans, err := Search(context.Background(), x, "the a of", Options{})
	if err != nil || len(ans.Results) != 0 {
		t.Errorf("stop words: %d results, %v; want none", len(ans.Results), err)
	}
	if ans, _ := Search(context.Background(), x, "the lake", Options{}); len(ans.Results) == 0 {
		t.Error("a content word beside stop words finds nothing")
	}
}
