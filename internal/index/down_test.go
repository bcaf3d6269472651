package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/embed"
)

// counting is an embedder that fails until ok is set and counts calls.
type counting struct {
	failing
	calls int
}

func (e *counting) URL() string { return "http://127.0.0.1:1" }

func (e *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls++
	return e.failing.Embed(ctx, texts)
}

// An embedder that is down costs one call per process, not one per batch
// or per query, says nothing of its own (the query that meets it says it
// once), and the documents it left without a vector get one when it is
// back.
func TestDownEmbedderIsAskedOncePerProcess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var lines []string
	for i := range 600 { // three batches of documents
		lines = append(lines, fmt.Sprintf("n%d||note number %d about the parser", i, i))
	}
	f.write("a.txt", strings.Join(lines, "\n"))
	e := &counting{failing: failing{Embedder: embed.NewStatic(embed.Corpus{})}}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	path := filepath.Join(f.dir, embed.DownFile)
	guard := func() embed.Embedder { return embed.NewGuard(e, path, func() time.Time { return now }) }

	x := f.open(guard())
	st := f.update(x)
	var down *embed.DownError
	if !errors.As(st.EmbedErr, &down) || down.Skipped || st.Missing != 600 || e.calls != 1 {
		t.Fatalf("update with the embedder down: %d calls, missing %d, EmbedErr %v", e.calls, st.Missing, st.EmbedErr)
	}
	if len(f.notices) != 0 {
		t.Errorf("notices %q: the failure is the query's to tell", f.notices)
	}
	if _, err := x.EmbedQuery(context.Background(), "parser"); err != down || e.calls != 1 {
		t.Errorf("the query after it: %v after %d calls, want the same failure, no call", err, e.calls)
	}
	x.Close()

	// The next process, within the window: no call at all.
	now = now.Add(time.Second)
	x = f.open(guard())
	if st := f.update(x); !errors.As(st.EmbedErr, &down) || !down.Skipped || e.calls != 1 {
		t.Errorf("next process: %d calls, EmbedErr %v", e.calls, st.EmbedErr)
	}
	x.Close()

	// Back, after the window: the next update fills every vector.
	e.ok = true
	now = now.Add(embed.DownFor)
	x = f.open(guard())
	if st := f.update(x); st.EmbedErr != nil || st.Embedded != 600 || st.Missing != 0 {
		t.Errorf("after the window, the embedder back: %+v", st)
	}
	if _, err := x.EmbedQuery(context.Background(), "parser"); err != nil {
		t.Errorf("query: %v", err)
	}
}
