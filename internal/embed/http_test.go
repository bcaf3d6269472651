package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/embed/embedtest"
)

// fakeServer answers like Ollama (/api/embed) and an OpenAI-compatible
// server (/v1/embeddings), with vectors from the built-in embedder scaled
// by 3 (the client must normalise them). OpenAI answers list the vectors
// in reverse order: the client must place them by index.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	batches []int
	fail    atomic.Int32 // answer 503 this many more times
	status  int          // answer this status always, if set
	auth    string
	delay   time.Duration
	poison  string // answer 500 to a batch with a text holding this
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	inner := embed.NewStatic(embed.Corpus{})
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.delay > 0 {
			time.Sleep(f.delay)
		}
		if f.status != 0 {
			http.Error(w, "model not found\nsecond line", f.status)
			return
		}
		if f.fail.Load() > 0 {
			f.fail.Add(-1)
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, in := range req.Input {
			if f.poison != "" && strings.Contains(in, f.poison) {
				http.Error(w, "input is too large to process", http.StatusInternalServerError)
				return
			}
		}
		f.mu.Lock()
		f.batches = append(f.batches, len(req.Input))
		f.auth = r.Header.Get("Authorization")
		f.mu.Unlock()
		vs, _ := inner.Embed(r.Context(), req.Input)
		for _, v := range vs {
			for i := range v {
				v[i] *= 3
			}
		}
		switch r.URL.Path {
		case "/api/embed":
			json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vs})
		case "/v1/embeddings":
			type item struct {
				Object    string    `json:"object"`
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			}
			var data []item
			for i := len(vs) - 1; i >= 0; i-- {
				data = append(data, item{"embedding", i, vs[i]})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func newHTTP(t *testing.T, cfg embed.HTTPConfig) *embed.HTTP {
	t.Helper()
	if cfg.Sleep == nil {
		cfg.Sleep = func(context.Context, time.Duration) error { return nil }
	}
	e, err := embed.NewHTTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOllamaContract(t *testing.T) {
	embedtest.Run(t, func(t *testing.T) embed.Embedder {
		return newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: newFakeServer(t).URL, Model: "nomic-embed-text"})
	})
}

func TestOpenAIContract(t *testing.T) {
	embedtest.Run(t, func(t *testing.T) embed.Embedder {
		return newHTTP(t, embed.HTTPConfig{Provider: "openai", URL: newFakeServer(t).URL + "/", Model: "text-embedding-3-small", APIKey: "k"})
	})
}

func TestHTTPBatchesAndSendsTheKey(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	e := newHTTP(t, embed.HTTPConfig{Provider: "openai", URL: f.URL, Model: "m", APIKey: "sk-test", Batch: 2})
	texts := []string{"a one", "b two", "", "c three", "d four", "e five"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 6 || len(vs[2]) != e.Dims() {
		t.Fatalf("%d vectors; the blank text's has %d numbers", len(vs), len(vs[2]))
	}
	if got := f.batches; len(got) != 3 || got[0] != 2 || got[1] != 2 || got[2] != 1 {
		t.Errorf("batches %v, want [2 2 1] (the blank text is not sent)", got)
	}
	if f.auth != "Bearer sk-test" {
		t.Errorf("Authorization %q", f.auth)
	}
	if e.ID() != "openai:m" {
		t.Errorf("ID %q", e.ID())
	}
}

func TestHTTPRetriesServerErrors(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.fail.Store(2)
	var slept []time.Duration
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Retries: 2,
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }})
	if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Fatalf("two 503s then success, with 2 retries: %v", err)
	}
	if len(slept) != 2 || slept[0] != 250*time.Millisecond || slept[1] != 500*time.Millisecond {
		t.Errorf("backoff %v, want [250ms 500ms]", slept)
	}
	f.fail.Store(3)
	_, err := e.Embed(context.Background(), []string{"hello"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("three 503s with 2 retries: %v, want the 503", err)
	}
}

func TestHTTPDoesNotRetryClientErrors(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.status = http.StatusNotFound
	calls := 0
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Retries: 3,
		Sleep: func(context.Context, time.Duration) error { calls++; return nil }})
	_, err := e.Embed(context.Background(), []string{"hello"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 404: model not found") || strings.Contains(err.Error(), "second line") {
		t.Errorf("error %v, want the 404 and the answer's first line", err)
	}
	if calls != 0 {
		t.Errorf("a 404 was retried %d times", calls)
	}
}

func TestHTTPTimesOut(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.delay = 300 * time.Millisecond
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Timeout: 50 * time.Millisecond})
	start := time.Now()
	if _, err := e.Embed(context.Background(), []string{"hello"}); err == nil {
		t.Fatal("no error from a server slower than the timeout")
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("took %v with a 50ms timeout", d)
	}
}

func TestNewHTTPChecksTheConfig(t *testing.T) {
	t.Parallel()
	if _, err := embed.NewHTTP(embed.HTTPConfig{Provider: "cohere", Model: "m"}); err == nil {
		t.Error("unknown provider accepted")
	}
	if _, err := embed.NewHTTP(embed.HTTPConfig{Provider: "ollama"}); err == nil {
		t.Error("no model accepted")
	}
}

// countingTransport counts the requests that reach the network.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPDoesNotRetryARefusedConnection(t *testing.T) {
	t.Parallel()
	// A port nothing listens on any more: a stopped Ollama.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	ct := &countingTransport{}
	slept := 0
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: url, Model: "m", Retries: 3,
		Client: &http.Client{Transport: ct},
		Sleep:  func(context.Context, time.Duration) error { slept++; return nil }})
	_, err = e.Embed(context.Background(), []string{"hello"})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %v, want the refused connection", err)
	}
	if want := "ollama embedder at " + url + ": dial tcp "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q (the URL once)", err, want)
	}
	if n := ct.n.Load(); n != 1 || slept != 0 {
		t.Errorf("a refused connection was tried %d times, with %d waits; want once, no wait", n, slept)
	}
	if _, err := e.EmbedQuery(context.Background(), "hello"); err == nil || ct.n.Load() != 2 {
		t.Errorf("EmbedQuery: %v after %d tries, want the refusal after one more", err, ct.n.Load())
	}
}

func TestHTTPEmbedQueryHasItsOwnDeadline(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.delay = 300 * time.Millisecond
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", QueryTimeout: 30 * time.Millisecond, Retries: 2})
	_, err := e.EmbedQuery(context.Background(), "hello")
	if err == nil || !strings.Contains(err.Error(), "no answer within 30ms") {
		t.Fatalf("EmbedQuery past its deadline: %v, want no answer within 30ms", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v reads as the caller's deadline", err)
	}
	// Documents keep the request timeout (30s): the same server answers.
	if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Errorf("Embed, slow but within its timeout: %v", err)
	}
	f.delay = 0
	v, err := e.EmbedQuery(context.Background(), "hello")
	if err != nil || len(v) != e.Dims() {
		t.Errorf("EmbedQuery: %d numbers, %v", len(v), err)
	}
}

func TestHTTPQueryTimeoutDefaults(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.delay = 100 * time.Millisecond
	// A request timeout shorter than the query's default bounds the query.
	e := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Timeout: 20 * time.Millisecond})
	if _, err := e.EmbedQuery(context.Background(), "hello"); err == nil || !strings.Contains(err.Error(), "no answer within 20ms") {
		t.Errorf("EmbedQuery with a 20ms timeout: %v", err)
	}
}
