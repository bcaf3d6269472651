package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// DownFile is the file, in the index's directory (under the git
// directory: never committed), that remembers an embedder that failed, so
// that the next memctl processes skip it at once instead of each waiting
// for it to fail again.
const DownFile = "embedder-down.json"

// DownFor is how long a failed embedder is skipped: long enough that a
// run of recalls by an agent costs one failure, short enough that a
// server started again is used within a minute (memctl doctor, when it
// answers, clears the memory at once).
const DownFor = time.Minute

// QueryEmbedder is an embedder that bounds the wait for a query's vector
// more tightly than a batch of documents' (the HTTP ones: a recall is
// waiting).
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Query embeds one query with e: by its EmbedQuery if it has one.
func Query(ctx context.Context, e Embedder, text string) ([]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQuery(ctx, text)
	}
	vs, err := e.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(vs))
	}
	return vs[0], nil
}

// DownError is an embedder that failed and is skipped until Until.
type DownError struct {
	ID string
	// Err is the failure (its text only, when it was read from the file).
	Err error
	// Since is the first failure of this run of failures; Until is when
	// the embedder is tried again.
	Since, Until time.Time
	// Skipped says the embedder was not tried: it failed before (in
	// another process, or earlier in this one's), and Until has not come.
	Skipped bool
}

func (e *DownError) Error() string {
	until := e.Until.UTC().Format(time.RFC3339)
	if e.Skipped {
		return fmt.Sprintf("skipping embedder %s until %s: it has failed since %s (%v)", e.ID, until, e.Since.UTC().Format(time.RFC3339), e.Err)
	}
	return fmt.Sprintf("%v; embedder %s is skipped until %s", e.Err, e.ID, until)
}

func (e *DownError) Unwrap() error { return e.Err }

// downState is DownFile's content.
type downState struct {
	Embedder string    `json:"embedder"`
	URL      string    `json:"url"`
	Error    string    `json:"error"`
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
}

// Guard is an embedder whose failures are remembered in a file, across
// processes: while one holds, Embed and EmbedQuery fail at once with a
// *DownError (Skipped) instead of asking the embedder. Past DownFor it is
// tried again, and a success forgets the failure. A failure that is the
// text's (HTTP 400, 413, 422: the server is up) is not remembered. A
// damaged file is ignored and replaced at the next failure.
type Guard struct {
	inner Embedder
	url   string
	path  string
	now   func() time.Time
	mu    sync.Mutex
	down  *DownError // this process's failure: it is not tried again
	// answered: the embedder has answered in this process.
	answered bool
}

// NewGuard guards e with the file at path (normally DownFile in the
// index's directory), at the times now gives.
func NewGuard(e Embedder, path string, now func() time.Time) *Guard {
	g := &Guard{inner: e, path: path, now: now}
	if u, ok := e.(interface{ URL() string }); ok {
		g.url = u.URL()
	}
	return g
}

// ID implements Embedder.
func (g *Guard) ID() string { return g.inner.ID() }

// Dims implements Embedder.
func (g *Guard) Dims() int { return g.inner.Dims() }

// Embed implements Embedder. Until the embedder has answered in this
// process, a short text is sent first, bounded as a query is: a batch of
// documents may wait timeout_seconds per request, retries included, and a
// server that accepts connections but never answers would hold the
// command (a recall bringing its index up to date) that long.
//
// A batch that the server answers with an error status, once it has
// answered in this process (the short text, or an earlier call), is not
// remembered: the server is up, and what failed is these texts (a
// document too large for its model, say). Recall keeps the embedder for
// the query and the documents that have vectors.
func (g *Guard) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var batchErr error
	v, err := guarded(ctx, g, func() ([][]float32, error) {
		if _, ok := g.inner.(QueryEmbedder); ok && !g.answered {
			if _, err := Query(ctx, g.inner, probeText); err != nil {
				return nil, err
			}
			g.answered = true
		}
		v, err := g.inner.Embed(ctx, texts)
		var s *StatusError
		if err != nil && g.answered && errors.As(err, &s) {
			batchErr = err
			return nil, nil // not the embedder's failure: see below
		}
		return v, err
	})
	if batchErr != nil {
		return nil, batchErr
	}
	return v, err
}

// probeText is what Embed sends first.
const probeText = "memctl"

// EmbedQuery implements QueryEmbedder.
func (g *Guard) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return guarded(ctx, g, func() ([]float32, error) { return Query(ctx, g.inner, text) })
}

func guarded[T any](ctx context.Context, g *Guard, call func() (T, error)) (T, error) {
	var zero T
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.down != nil {
		return zero, g.down
	}
	now := g.now()
	st, found := readDown(g.path, g.ID(), g.url)
	if st != nil && skipping(st, now) {
		g.down = &DownError{ID: g.ID(), Err: errors.New(st.Error), Since: st.Since, Until: st.Until, Skipped: true}
		return zero, g.down
	}
	v, err := call()
	if err == nil {
		g.answered = true
		if found {
			// Forgetting costs nothing but the next process's read.
			_ = os.Remove(g.path)
		}
		return v, nil
	}
	if ctx.Err() != nil || !remembered(err) {
		return zero, err
	}
	// The window starts when the call failed, which may be long after it
	// started (a request that timed out).
	now = g.now()
	since := now
	if st != nil && now.Sub(st.Until) <= DownFor && st.Since.Before(now) {
		since = st.Since // the same run of failures
	}
	g.down = &DownError{ID: g.ID(), Err: err, Since: since, Until: now.Add(DownFor)}
	g.write(downState{Embedder: g.ID(), URL: g.url, Error: err.Error(), Since: since.UTC(), Until: g.down.Until.UTC()})
	return zero, g.down
}

// readDown is the state in the file at path when it names embedder id at
// url (nil if it names another, is damaged or absent), and whether a file
// is there that a success should remove (this embedder's, or a damaged
// one).
func readDown(path, id, url string) (*downState, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, !errors.Is(err, fs.ErrNotExist)
	}
	var st downState
	if json.Unmarshal(data, &st) != nil || st.Embedder == "" {
		return nil, true
	}
	if st.Embedder != id || st.URL != url {
		return nil, false // another worktree's embedder: not ours to forget
	}
	return &st, true
}

// write records a failure. Failing to is not an error: this process
// remembers it anyway, and the next one tries the embedder again.
func (g *Guard) write(st downState) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return
	}
	_ = fsx.WriteDerived(g.path, append(data, '\n'))
}

// skipping reports whether st's window holds at now. A window that ends
// more than DownFor after now (a clock set back, a file written by hand)
// does not.
func skipping(st *downState, now time.Time) bool {
	return now.Before(st.Until) && !now.Before(st.Until.Add(-DownFor))
}

// remembered reports whether err says the embedder cannot be used for
// now, rather than that it refused this text.
func remembered(err error) bool {
	var s *StatusError
	if errors.As(err, &s) {
		switch s.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			return false
		}
	}
	return true
}

// Forget removes the memory of a failure of embedder id at url from the
// file at path, if that is what it holds (memctl doctor, when the
// embedder answers: recall uses it again at once).
func Forget(path, id, url string) error {
	if _, found := readDown(path, id, url); !found {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
