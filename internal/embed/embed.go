// Package embed turns text into vectors for recall's dense search.
//
// Every embedder satisfies Embedder and passes the contract suite in
// embedtest. The built-in one (Static) is pure Go, offline and needs no
// download: GloVe word vectors from a table compiled into the binary,
// weighted by the corpus's inverse document frequencies, with the
// corpus's common component removed, next to a feature-hashing vector of
// words and character n-grams. HTTP embedders (Ollama, OpenAI-compatible)
// are opt-in.
package embed

import (
	"context"
	"math"
)

// Embedder turns texts into vectors of Dims() numbers, one per text.
type Embedder interface {
	// ID names the model and every setting that changes its vectors:
	// vectors made under another ID are made again.
	ID() string
	// Dims is the length of every vector.
	Dims() int
	// Embed returns one vector per text, in order. An empty text gives a
	// zero vector.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Normalize scales v to unit length in place (a zero vector stays zero)
// and returns it.
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Dot is the dot product of two vectors of the same length: their cosine
// when both have unit length.
func Dot(a, b []float32) float32 {
	var s float32
	for i, x := range a[:len(b)] {
		s += x * b[i]
	}
	return s
}

// Fitter is an embedder that learns from the corpus it embeds for, as the
// built-in one does: the index fits it to its documents and re-fits it
// when the corpus has drifted.
type Fitter interface {
	Embedder
	// Fit returns the embedder for a corpus.
	Fit(c Corpus) Fitter
	// WordPart is the part of a vector FitComponent learns from.
	WordPart(text string) ([]float32, bool)
}
