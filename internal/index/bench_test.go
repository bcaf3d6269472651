package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index/indextest"
)

// genSource is a source of n generated documents in one file.
type genSource struct {
	n    int
	seed uint64
	edit int // document whose text changes with seed
}

func (genSource) Kind() string { return "gen" }

func (genSource) Files(string) ([]string, error) { return []string{"gen.txt"}, nil }

func (g genSource) Docs(string, []byte) ([]Doc, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make([]Doc, g.n)
	for i := range docs {
		words := indextest.Words(rng)
		body := strings.Join(words, " ")
		if i == g.edit {
			body += fmt.Sprintf(" edit %d", g.seed)
		}
		docs[i] = Doc{ID: fmt.Sprintf("gen:%d", i), Kind: "task", Ref: fmt.Sprint(i), Title: strings.Join(words[:4], " "),
			Body: body, File: "gen.txt", Line: i + 1, Status: "open", Priority: 2}
	}
	return docs, nil
}

func benchRoot(b *testing.B) string {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "gen.txt"), []byte("0"), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

func buildIndex(b *testing.B, root string, n int) *Index {
	x, err := Open(context.Background(), Options{Dir: filepath.Join(root, "idx"), Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := x.Update(context.Background(), root, []Source{genSource{n: n, edit: -1}}); err != nil {
		b.Fatal(err)
	}
	return x
}

func benchBuild(b *testing.B, n int) {
	b.ReportAllocs()
	for b.Loop() {
		root := benchRoot(b)
		x := buildIndex(b, root, n)
		x.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkBuild1k(b *testing.B)  { benchBuild(b, 1000) }
func BenchmarkBuild10k(b *testing.B) { benchBuild(b, 10000) }

func benchSearch(b *testing.B, n int, dense bool) {
	root := benchRoot(b)
	x := buildIndex(b, root, n)
	defer x.Close()
	ctx := context.Background()
	queries := []string{"flaky integration tests on the build server", "database migration rollback", "payment timeout retry"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		if dense {
			v, err := x.EmbedQuery(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := x.SearchVector(ctx, v, Filter{}, 100); err != nil {
				b.Fatal(err)
			}
		} else if _, err := x.SearchWords(ctx, q, Filter{}, 100); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchWords1k(b *testing.B)   { benchSearch(b, 1000, false) }
func BenchmarkSearchWords10k(b *testing.B)  { benchSearch(b, 10000, false) }
func BenchmarkSearchVector1k(b *testing.B)  { benchSearch(b, 1000, true) }
func BenchmarkSearchVector10k(b *testing.B) { benchSearch(b, 10000, true) }

// BenchmarkUpdateOneChanged10k: one document of 10,000 changed, as when a
// fact is edited between two recalls.
func BenchmarkUpdateOneChanged10k(b *testing.B) {
	root := benchRoot(b)
	x := buildIndex(b, root, 10000)
	defer x.Close()
	p := filepath.Join(root, "gen.txt")
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		seed++
		os.WriteFile(p, []byte(fmt.Sprint(seed)), 0o644) // a new size or mtime
		st, err := x.Update(context.Background(), root, []Source{genSource{n: 10000, seed: seed, edit: 42}})
		if err != nil || st.Changed != 1 {
			b.Fatalf("%+v %v", st, err)
		}
	}
}

// BenchmarkUpdateNothing10k is the check every recall makes first.
func BenchmarkUpdateNothing10k(b *testing.B) {
	root := benchRoot(b)
	x := buildIndex(b, root, 10000)
	defer x.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Update(context.Background(), root, []Source{genSource{n: 10000, edit: -1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchVector100k measures where brute force stops being
// enough; it builds 100,000 documents first, so it runs only with
// MEMCTL_BENCH_LARGE=1.
func BenchmarkSearchVector100k(b *testing.B) {
	if os.Getenv("MEMCTL_BENCH_LARGE") != "1" {
		b.Skip("set MEMCTL_BENCH_LARGE=1")
	}
	benchSearch(b, 100000, true)
}
