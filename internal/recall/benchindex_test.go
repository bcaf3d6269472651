package recall

import (
	"context"
	"os"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// BenchmarkSearchIndexAt searches an existing index, in
// MEMCTL_BENCH_INDEX (a workspace's .git/memctl), in MEMCTL_BENCH_MODE
// (default hybrid): a real corpus's vocabulary, which generated text
// does not have. It reads the index only.
func BenchmarkSearchIndexAt(b *testing.B) {
	dir := os.Getenv("MEMCTL_BENCH_INDEX")
	if dir == "" {
		b.Skip()
	}
	ctx := context.Background()
	x, err := index.Open(ctx, index.Options{Dir: dir, Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	for b.Loop() {
		if _, err := Search(ctx, x, "flaky integration tests on the build server", Options{Mode: os.Getenv("MEMCTL_BENCH_MODE")}); err != nil {
			b.Fatal(err)
		}
	}
}
