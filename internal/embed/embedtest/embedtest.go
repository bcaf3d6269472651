// Package embedtest is the contract every embed.Embedder must keep. Each
// implementation's tests call Run with a constructor.
package embedtest

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

var texts = []string{
	"We use PostgreSQL 16 for metadata; the log stays on local disk.",
	"The integration tests share port 7070; run them with -p 1 or they flake.",
	"Every write to the log is fsynced before the client gets 200 OK.",
	"Keys are at most 256 bytes and values at most 1 MiB.",
}

// Run checks the contract. newEmbedder returns a fresh embedder for each
// subtest.
func Run(t *testing.T, newEmbedder func(t *testing.T) embed.Embedder) {
	t.Run("ID is stable and not empty", func(t *testing.T) {
		e := newEmbedder(t)
		id := e.ID()
		if id == "" {
			t.Fatal("ID() is empty")
		}
		if _, err := e.Embed(context.Background(), texts[:1]); err != nil {
			t.Fatal(err)
		}
		if e.ID() != id {
			t.Errorf("ID changed from %q to %q after Embed", id, e.ID())
		}
	})
	t.Run("one unit vector of Dims numbers per text, in order", func(t *testing.T) {
		e := newEmbedder(t)
		vs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != len(texts) {
			t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
		}
		for i, v := range vs {
			if len(v) == 0 || len(v) != e.Dims() {
				t.Fatalf("vector %d has %d numbers, Dims() = %d", i, len(v), e.Dims())
			}
			if n := norm(v); math.Abs(n-1) > 1e-3 {
				t.Errorf("vector %d has length %g, want 1", i, n)
			}
		}
		for i := range vs {
			for j := i + 1; j < len(vs); j++ {
				if embed.Dot(vs[i], vs[j]) > 0.999 {
					t.Errorf("texts %d and %d got the same vector", i, j)
				}
			}
		}
	})
	t.Run("a batch equals its texts one by one", func(t *testing.T) {
		e := newEmbedder(t)
		batch, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			one, err := e.Embed(context.Background(), []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if d := embed.Dot(one[0], batch[i]); d < 0.9999 {
				t.Errorf("text %d: cosine %g between batch and single", i, d)
			}
		}
	})
	t.Run("no texts, no vectors", func(t *testing.T) {
		vs, err := newEmbedder(t).Embed(context.Background(), nil)
		if err != nil || len(vs) != 0 {
			t.Errorf("Embed(nil) = %d vectors, %v", len(vs), err)
		}
	})
	t.Run("an empty text gives a zero vector", func(t *testing.T) {
		e := newEmbedder(t)
		vs, err := e.Embed(context.Background(), []string{texts[0], ""})
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 2 || len(vs[1]) != e.Dims() || norm(vs[1]) != 0 {
			t.Errorf("empty text: %d vectors, second of length %g with %d numbers", len(vs), norm(vs[1]), len(vs[1]))
		}
	})
	t.Run("a cancelled context stops it", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := newEmbedder(t).Embed(ctx, texts)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Embed with a cancelled context: %v, want context.Canceled", err)
		}
	})
	t.Run("safe for concurrent use", func(t *testing.T) {
		e := newEmbedder(t)
		want, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					errs <- err
					return
				}
				for i := range got {
					if embed.Dot(got[i], want[i]) < 0.9999 {
						errs <- errors.New("a concurrent call gave another vector")
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
