package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/index/indextest"
)

var benchQueries = []string{"flaky integration tests on the build server", "database migration rollback", "payment timeout retry"}

// benchIndex is an index of n generated task-like documents.
func benchIndex(b *testing.B, n int) *index.Index {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make(memSource, n)
	for i := range docs {
		words := indextest.Words(rng)
		docs[i] = index.Doc{ID: fmt.Sprintf("task:%d", i), Kind: "task", Ref: fmt.Sprint(i), Title: strings.Join(words[:4], " "),
			Body: strings.Join(words, " "), File: "corpus.jsonl", Line: i + 1, Status: "open", Priority: 2}
	}
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "corpus.jsonl"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	x, err := index.Open(ctx, index.Options{Dir: filepath.Join(root, "idx"), Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.Update(ctx, root, []index.Source{docs}); err != nil {
		b.Fatal(err)
	}
	return x
}

// benchSearch: a whole search in one mode, results read.
func benchSearch(b *testing.B, n int, mode string) {
	x := benchIndex(b, n)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := Search(ctx, x, benchQueries[i%len(benchQueries)], Options{Mode: mode}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkSearchBM25_1k(b *testing.B)   { benchSearch(b, 1000, ModeBM25) }
func BenchmarkSearchBM25_10k(b *testing.B)  { benchSearch(b, 10000, ModeBM25) }
func BenchmarkSearchHybrid1k(b *testing.B)  { benchSearch(b, 1000, ModeHybrid) }
func BenchmarkSearchHybrid10k(b *testing.B) { benchSearch(b, 10000, ModeHybrid) }

// benchFuse: the fusion of hybrid search alone — the candidates' texts
// and metadata, their word match, the dense scores of the word
// candidates and the scaling — over the two rankings' top 100, which are
// found once beforehand. In a search, the word candidates' part runs
// beside the dense ranking.
func benchFuse(b *testing.B, n int) {
	x := benchIndex(b, n)
	ctx := context.Background()
	type ranked struct {
		q            string
		qv           []float32
		words, dense []index.Hit
	}
	var rs []ranked
	for _, q := range benchQueries {
		words, err := x.SearchWords(ctx, q, index.Filter{}, 100)
		if err != nil {
			b.Fatal(err)
		}
		qv, dense, err := searchDense(ctx, x, q, Options{Depth: 100})
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, ranked{q, qv, words, dense})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := rs[i%len(rs)]
		p, err := prepare(ctx, x, r.q)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.add(ctx, x, hitIDs(r.words)); err != nil {
			b.Fatal(err)
		}
		if _, err := fuseHybrid(ctx, x, p, r.qv, r.words, r.dense, DefaultWeights); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkFuseHybrid1k(b *testing.B)  { benchFuse(b, 1000) }
func BenchmarkFuseHybrid10k(b *testing.B) { benchFuse(b, 10000) }
