package embed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/embed/embedtest"
)

func TestStaticContract(t *testing.T) {
	embedtest.Run(t, func(*testing.T) embed.Embedder { return embed.NewStatic(embed.Corpus{}) })
}

func TestFittedStaticContract(t *testing.T) {
	df := map[string]int{"the": 90, "we": 50, "use": 20, "log": 10, "postgresql": 1}
	c := embed.Corpus{Docs: 100, DF: func(w string) int { return df[w] }, Component: unit(100, 7)}
	embedtest.Run(t, func(*testing.T) embed.Embedder { return embed.NewStatic(c) })
}

func unit(n, at int) []float32 {
	v := make([]float32, n)
	v[at] = 1
	return v
}

func TestWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                             nil,
		"We use PostgreSQL 16!":        {"we", "use", "postgresql", "16"},
		"fsync()-before-200 OK":        {"fsync", "before", "200", "ok"},
		"Ünïcode  Straße ΣΟΦΙΑ, café.": {"ünïcode", "straße", "σοφια", "café"},
		"snake_case and a.b.c":         {"snake", "case", "and", "a", "b", "c"},
	} {
		if got := embed.Words(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

// The word table carries meaning: related words are closer than unrelated
// ones, which is what lets "which database do we use" find PostgreSQL.
func TestStaticKnowsRelatedWords(t *testing.T) {
	t.Parallel()
	e := embed.NewStatic(embed.Corpus{})
	vs, err := e.Embed(context.Background(), []string{"which database do we use", "We store metadata in PostgreSQL.", "The tests flake on port clashes."})
	if err != nil {
		t.Fatal(err)
	}
	related, unrelated := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2])
	if related <= unrelated {
		t.Errorf("cosine(database question, PostgreSQL fact) = %.3f, not above cosine(…, flaky tests) = %.3f", related, unrelated)
	}
	parts := [][]float32{}
	for _, s := range []string{"database", "postgresql", "mysql", "sqlite"} {
		p, ok := e.WordPart(s)
		if !ok {
			t.Fatalf("%q is not in the word table", s)
		}
		parts = append(parts, p)
	}
	if p, ok := e.WordPart("zqxjvbnmkk"); ok {
		t.Errorf("a made-up word has a vector: %v", p[:3])
	}
	u := embed.FitComponent(parts)
	if len(u) != 100 {
		t.Fatalf("FitComponent gave %d numbers", len(u))
	}
	if n := embed.Dot(u, u); n < 0.999 || n > 1.001 {
		t.Errorf("the common component has squared length %g, want 1", n)
	}
	if embed.FitComponent(parts[:1]) != nil {
		t.Error("FitComponent of one part should be nil")
	}
}

// IDF weighting: a word every document has counts for little, so two
// texts sharing only it are far apart, while sharing a rare word brings
// them close.
func TestStaticWeighsRareWords(t *testing.T) {
	t.Parallel()
	df := map[string]int{"service": 99, "the": 99, "kafka": 1, "payments": 1, "billing": 1}
	e := embed.NewStatic(embed.Corpus{Docs: 100, DF: func(w string) int { return df[w] }})
	vs, _ := e.Embed(context.Background(), []string{"the kafka service", "kafka billing", "the service payments"})
	if a, b := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2]); a <= b {
		t.Errorf("sharing the rare word (%.3f) should beat sharing the common ones (%.3f)", a, b)
	}
}
