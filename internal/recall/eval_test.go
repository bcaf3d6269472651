package recall

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

var tinyDir = filepath.Join("..", "..", "testdata", "eval", "tiny")

func TestScoreMatchesTheReferenceFormulas(t *testing.T) {
	t.Parallel()
	// Two relevant documents, found at ranks 2 and 7.
	m := queryScore([]string{"x", "a", "y", "z", "w", "v", "b"}, map[string]float64{"a": 1, "b": 1, "never": 0})
	wantNDCG := (1/math.Log2(3) + 1/math.Log2(8)) / (1 + 1/math.Log2(3))
	if m.Recall5 != 0.5 || m.Recall10 != 1 || math.Abs(m.NDCG10-wantNDCG) > 1e-12 || m.MRR != 0.5 {
		t.Errorf("metrics %+v, want recall@5 .5, recall@10 1, ndcg %.6f, mrr .5", m, wantNDCG)
	}
	// Graded relevance: gain 2^rel - 1.
	m = queryScore([]string{"b", "a"}, map[string]float64{"a": 2, "b": 1})
	want := (1 + 3/math.Log2(3)) / (3 + 1/math.Log2(3))
	if math.Abs(m.NDCG10-want) > 1e-12 {
		t.Errorf("graded ndcg %g, want %g", m.NDCG10, want)
	}
	// Past rank 10 only MRR counts.
	ranked := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}
	if m := queryScore(ranked, map[string]float64{"a": 1}); m != (Metrics{MRR: 1.0 / 11}) {
		t.Errorf("metrics %+v, want MRR 1/11 only", m)
	}
	// Nothing relevant found, and a query with no relevant document.
	if m := queryScore([]string{"x"}, map[string]float64{"a": 1}); m != (Metrics{}) {
		t.Errorf("metrics %+v, want zeros", m)
	}
	if m := queryScore([]string{"x"}, map[string]float64{"x": 0}); m != (Metrics{}) {
		t.Errorf("metrics %+v, want zeros", m)
	}
	// score adds to what it is given.
	sum := Metrics{MRR: 1}
	score(&sum, []string{"a"}, map[string]float64{"a": 1})
	if sum != (Metrics{Recall5: 1, Recall10: 1, NDCG10: 1, MRR: 2}) {
		t.Errorf("sum %+v", sum)
	}
}

func queryScore(ranked []string, rel map[string]float64) Metrics {
	var m Metrics
	score(&m, ranked, rel)
	return m
}

func TestFindCorpora(t *testing.T) {
	t.Parallel()
	t.Run("the top and each folder with a corpus, queries from the top", func(t *testing.T) {
		got, err := FindCorpora(tinyDir)
		if err != nil {
			t.Fatal(err)
		}
		want := []Corpus{
			{Name: "tiny", Dir: tinyDir, Queries: filepath.Join(tinyDir, "queries.jsonl")},
			{Name: "facts", Dir: filepath.Join(tinyDir, "facts"), Queries: filepath.Join(tinyDir, "queries.jsonl")},
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("a folder's own queries win; folders without a corpus are not corpora", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"b/corpus.jsonl", "b/queries.jsonl", "a/corpus.jsonl", "notes/README.md"} {
			writeFile(t, filepath.Join(dir, f), "")
		}
		got, err := FindCorpora(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []Corpus{
			{Name: "a", Dir: filepath.Join(dir, "a"), Queries: filepath.Join(dir, "queries.jsonl")},
			{Name: "b", Dir: filepath.Join(dir, "b"), Queries: filepath.Join(dir, "b", "queries.jsonl")},
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("no corpus anywhere is not found", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "sub", "qrels.tsv"), "")
		if _, err := FindCorpora(dir); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no corpus.jsonl") {
			t.Errorf("err = %v, want not found", err)
		}
		if _, err := FindCorpora(filepath.Join(dir, "nosuch")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want not found", err)
		}
	})
	t.Run("a folder named as the benchmark is refused", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bench")
		writeFile(t, filepath.Join(dir, "corpus.jsonl"), "")
		writeFile(t, filepath.Join(dir, "bench", "corpus.jsonl"), "")
		if _, err := FindCorpora(dir); err == nil || !strings.Contains(err.Error(), "the folder bench has the benchmark's own name") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestEvaluateTinyBenchmark(t *testing.T) {
	t.Parallel()
	corpora, err := FindCorpora(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	opts := EvalOptions{GroupBy: "group", TempDir: t.TempDir(), Embedder: embed.NewStatic(embed.Corpus{}), KeepRuns: true}
	rep, err := Evaluate(context.Background(), corpora[0], opts)
	if err != nil {
		t.Fatal(err)
	}
	// The numbers worked out by hand in testdata/eval/tiny/README.md.
	if rep.Queries != 3 || rep.Groups != 2 || rep.Docs != 8 || strings.Join(rep.QueryIDs, " ") != "q1 q2 q3" {
		t.Errorf("report %+v", rep)
	}
	bm25, _ := rep.Mode(ModeBM25)
	wantNDCG3 := 1 / (1 + 1/math.Log2(3))
	want := Metrics{Recall5: 2.5 / 3, Recall10: 2.5 / 3, NDCG10: (2 + wantNDCG3) / 3, MRR: 1}
	if !near(bm25.Mean, want) {
		t.Errorf("bm25 %+v, want %+v", bm25.Mean, want)
	}
	if q3 := bm25.PerQuery[2]; !near(q3, Metrics{Recall5: 0.5, Recall10: 0.5, NDCG10: wantNDCG3, MRR: 1}) {
		t.Errorf("bm25 q3 %+v", q3)
	}
	// Three queries, nDCG 1, 1 and 0.613: the bootstrap means lie
	// between 0.613 (three times q3) and 1.
	if ci := bm25.NDCG10CI; math.Abs(ci.Lo-wantNDCG3) > 1e-9 || ci.Hi != 1 {
		t.Errorf("bm25 interval %+v, want [%.4f, 1]", ci, wantNDCG3)
	}
	if got := bm25.Run[0]; got.Query != "q1" || got.Docs[0] != "d1" || len(got.Docs) != len(got.Scores) || got.Scores[0] <= 0 {
		t.Errorf("bm25 run of q1 %+v", got)
	}
	for _, m := range []string{ModeDense, ModeHybrid} {
		if got, _ := rep.Mode(m); got.Mean.Recall10 < bm25.Mean.Recall10 {
			t.Errorf("%s recall@10 %g is below bm25's: it should find d5 by meaning", m, got.Mean.Recall10)
		}
	}
	if len(rep.Compared) != 2 || rep.Compared[0].Mode != ModeDense || rep.Compared[1].Mode != ModeHybrid || rep.Compared[1].Baseline != ModeBM25 {
		t.Fatalf("compared %+v", rep.Compared)
	}
	hyb, _ := rep.Mode(ModeHybrid)
	if c := rep.Compared[1]; math.Abs(c.Diff-(hyb.Mean.NDCG10-bm25.Mean.NDCG10)) > 1e-12 || c.P <= 0 || c.P > 1 {
		t.Errorf("hybrid − bm25 %+v", c)
	}

	// The folder's corpus: two judged queries (q2 has no judgement here),
	// bm25 finds f1 for q1 and f2 but not f3 for q3.
	rep, err = Evaluate(context.Background(), corpora[1], EvalOptions{GroupBy: "group", TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 2 || rep.Docs != 4 || len(rep.Modes) != 1 || rep.Compared != nil {
		t.Errorf("facts without an embedder: %+v", rep)
	}
	want = Metrics{Recall5: 0.75, Recall10: 0.75, NDCG10: (1 + wantNDCG3) / 2, MRR: 1}
	if !near(rep.Modes[0].Mean, want) {
		t.Errorf("facts bm25 %+v, want %+v", rep.Modes[0].Mean, want)
	}
}

func TestEvaluateRefusesDenseWithoutAnEmbedder(t *testing.T) {
	t.Parallel()
	c := Corpus{Name: "tiny", Dir: tinyDir, Queries: filepath.Join(tinyDir, "queries.jsonl")}
	_, err := Evaluate(context.Background(), c, EvalOptions{Modes: []string{ModeBM25, ModeHybrid}, TempDir: t.TempDir()})
	if !errors.Is(err, ErrNeedsEmbedder) {
		t.Errorf("err = %v, want ErrNeedsEmbedder", err)
	}
}

func TestWriteTREC(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	run := []Ranked{{Query: "q1", Docs: []string{"d2", "d1"}, Scores: []float64{0.5, 0.25}}, {Query: "q2"}}
	if err := WriteTREC(&b, "hybrid", run); err != nil {
		t.Fatal(err)
	}
	if want := "q1 Q0 d2 1 0.5 hybrid\nq1 Q0 d1 2 0.25 hybrid\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestReadRowsRefusesAnIDWithWhiteSpace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	writeFile(t, path, "{\"id\": \"ok\"}\n{\"id\": \"a b\"}\n")
	if _, err := readRows(path); err == nil || !strings.Contains(err.Error(), "corpus.jsonl:2: field \"id\" \"a b\" holds white space") {
		t.Errorf("err = %v", err)
	}
}

func near(a, b Metrics) bool {
	const eps = 1e-9
	return math.Abs(a.Recall5-b.Recall5) < eps && math.Abs(a.Recall10-b.Recall10) < eps &&
		math.Abs(a.NDCG10-b.NDCG10) < eps && math.Abs(a.MRR-b.MRR) < eps
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// queryFails embeds documents but fails on the text of one query, as an
// embedding server that goes down between indexing and searching does.
type queryFails struct {
	embed.Embedder
	query string
}

func (q queryFails) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 && texts[0] == q.query {
		return nil, errors.New("HTTP 503")
	}
	return q.Embedder.Embed(ctx, texts)
}

func TestEvaluateRefusesAModeThatFellBack(t *testing.T) {
	t.Parallel()
	c := Corpus{Name: "tiny", Dir: tinyDir, Queries: filepath.Join(tinyDir, "queries.jsonl")}
	emb := queryFails{Embedder: embed.NewStatic(embed.Corpus{}), query: "postgresql metadata"}
	_, err := Evaluate(context.Background(), c, EvalOptions{Modes: []string{ModeHybrid}, Embedder: emb, TempDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "tiny: query q1: mode hybrid fell back to bm25: dense search failed (HTTP 503)") {
		t.Errorf("err = %v, want hybrid's fallback refused", err)
	}
}

func TestJudgedCountsAQueryOnce(t *testing.T) {
	t.Parallel()
	in := evalInput{
		queries: []evalRow{{ID: "q1"}, {ID: "q2"}, {ID: "q1", Text: "again"}, {ID: "q3"}},
		qrels:   map[string]map[string]float64{"q1": {"d": 1}, "q2": {"d": 0}, "q3": {"d": 2}},
	}
	var ids []string
	for _, q := range in.judged() {
		ids = append(ids, q.ID+q.Text)
	}
	if got := strings.Join(ids, " "); got != "q1 q3" {
		t.Errorf("judged %q, want q1 q3 (q2 has only a 0, q1 counts once)", got)
	}
}
