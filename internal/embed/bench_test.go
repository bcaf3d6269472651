package embed_test

import (
	"context"
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

// BenchmarkStaticQuery is a recall's query embedding.
func BenchmarkStaticQuery(b *testing.B) {
	e := embed.NewStatic(embed.Corpus{Docs: 10000, DF: func(string) int { return 10 }})
	texts := []string{"flaky integration tests on the build server"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStaticDocuments256 is one batch of an index build.
func BenchmarkStaticDocuments256(b *testing.B) {
	e := embed.NewStatic(embed.Corpus{Docs: 10000, DF: func(string) int { return 10 }})
	texts := make([]string, 256)
	for i := range texts {
		texts[i] = "Close returns while compaction still holds the old log open; the integration tests share port 7070 and flake under load."
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
