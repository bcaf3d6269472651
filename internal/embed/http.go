package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPConfig configures an embedder behind an HTTP API.
type HTTPConfig struct {
	// Provider is "ollama" (POST /api/embed) or "openai" (POST
	// /v1/embeddings, which many servers implement).
	Provider string
	// URL is the server's base URL; empty takes the provider's default.
	URL string
	// Model names the embedding model.
	Model string
	// APIKey is sent as a bearer token (openai); it comes from an
	// environment variable, never from a file.
	APIKey string
	// Batch is how many texts go in one request (default 64).
	Batch int
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
	// ConnectTimeout bounds making the connection, DNS included (default
	// DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// QueryTimeout bounds EmbedQuery, retries and their waits included
	// (default DefaultQueryTimeout, or Timeout if that is shorter).
	QueryTimeout time.Duration
	// Retries is how many times a failed request is tried again, with
	// exponential backoff from 250ms.
	Retries int
	// Client makes the requests; nil uses one with Timeout and
	// ConnectTimeout.
	Client *http.Client
	// Sleep waits between retries; nil uses time.Sleep with ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultConnectTimeout bounds making a connection to an HTTP embedder.
// A server that is up answers a connect in milliseconds (a few hundred
// across the world); 2s allows one lost SYN to be sent again, and keeps a
// host that drops packets from holding a recall for the 30s of a request.
const DefaultConnectTimeout = 2 * time.Second

// DefaultQueryTimeout bounds embedding one query, retries included: a
// query is one short text, which a server that is up embeds in well under
// a second (a cold Ollama loads the model first, in a second or two). Past
// it, recall answers by words instead of waiting.
const DefaultQueryTimeout = 5 * time.Second

// HTTP is an embedder behind Ollama's or an OpenAI-compatible API. It is
// safe for concurrent use.
type HTTP struct {
	cfg  HTTPConfig
	mu   sync.Mutex
	dims int
}

// NewHTTP returns an HTTP embedder; it checks the configuration, not the
// server.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	switch cfg.Provider {
	case "ollama":
		if cfg.URL == "" {
			cfg.URL = "http://localhost:11434"
		}
	case "openai":
		if cfg.URL == "" {
			cfg.URL = "https://api.openai.com"
		}
	default:
		return nil, fmt.Errorf("unknown embedding provider %q: use ollama or openai", cfg.Provider)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%s embedder: no model configured", cfg.Provider)
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = min(DefaultQueryTimeout, cfg.Timeout)
	}
	cfg.Retries = max(cfg.Retries, 0)
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout, Transport: transport(cfg.ConnectTimeout)}
	}
	if cfg.Sleep == nil {
		cfg.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	return &HTTP{cfg: cfg}, nil
}

// ID implements Embedder: the provider and model (the server's address
// does not change the vectors).
func (h *HTTP) ID() string { return h.cfg.Provider + ":" + h.cfg.Model }

// URL is the server's base URL, the provider's default filled in.
func (h *HTTP) URL() string { return h.cfg.URL }

// Dims implements Embedder. It is 0 until the first answer says it.
func (h *HTTP) Dims() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dims
}

// Embed implements Embedder, in batches of cfg.Batch texts. Blank texts
// are not sent: they get zero vectors.
func (h *HTTP) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var send []string
	var at []int
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			send = append(send, t)
			at = append(at, i)
		}
	}
	out := make([][]float32, len(texts))
	for i := 0; i < len(send); i += h.cfg.Batch {
		j := min(i+h.cfg.Batch, len(send))
		vecs, err := h.embedBatch(ctx, send[i:j])
		if err != nil {
			return nil, err
		}
		for k, v := range vecs {
			out[at[i+k]] = v
		}
	}
	dims := h.Dims()
	for i := range out {
		if out[i] == nil {
			out[i] = make([]float32, dims)
		}
	}
	return out, nil
}

// EmbedQuery embeds one query within cfg.QueryTimeout, retries
// included (a recall is waiting). Running out of it is an error that
// says so, not the caller's context's.
func (h *HTTP) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	qctx, cancel := context.WithTimeout(ctx, h.cfg.QueryTimeout)
	defer cancel()
	vs, err := h.Embed(qctx, []string{text})
	if err != nil {
		if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s embedder at %s: no answer within %v", h.cfg.Provider, h.cfg.URL, h.cfg.QueryTimeout)
		}
		return nil, err
	}
	return vs[0], nil
}

// transport is Go's default transport with connections made within
// connect and a TLS handshake bounded alike.
func transport(connect time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	t.DialContext = d.DialContext
	t.TLSHandshakeTimeout = 2 * connect
	return t
}

// permanentError is a failure retrying cannot fix (a 4xx answer, a
// server that cannot be reached).
type permanentError struct{ error }

func (p permanentError) Unwrap() error { return p.error }

// StatusError is an answer other than 200 OK.
type StatusError struct {
	Code int
	// Text is the first line of the answer's body.
	Text string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Text) }

// unreachable reports whether err is a connection that could not be made:
// refused (nothing listens: a stopped Ollama), no such host, no route,
// no answer to the connect within ConnectTimeout. Trying again at once
// meets the same, so it is not retried; the address named in the
// configuration is what to check.
func unreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func (h *HTTP) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	var last error
	for attempt := 0; attempt <= h.cfg.Retries; attempt++ {
		if attempt > 0 {
			if err := h.cfg.Sleep(ctx, time.Duration(250<<(attempt-1))*time.Millisecond); err != nil {
				return nil, err
			}
		}
		vecs, err := h.request(ctx, texts)
		if err == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		last = err
		var p permanentError
		if errors.As(err, &p) {
			break
		}
	}
	return nil, fmt.Errorf("%s embedder at %s: %w", h.cfg.Provider, h.cfg.URL, last)
}

func (h *HTTP) request(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := "/api/embed"
	if h.cfg.Provider == "openai" {
		path = "/v1/embeddings"
	}
	body, _ := json.Marshal(map[string]any{"model": h.cfg.Model, "input": texts})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.cfg.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, permanentError{err}
	}
	req.Header.Set("Content-Type", "application/json")
	if h.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.cfg.APIKey)
	}
	resp, err := h.cfg.Client.Do(req)
	if err != nil {
		// The URL is in the error already (embedBatch adds it).
		var u *url.Error
		if errors.As(err, &u) {
			err = u.Err
		}
		if unreachable(err) {
			return nil, permanentError{err}
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		err := &StatusError{Code: resp.StatusCode, Text: firstLine(data)}
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout {
			return nil, permanentError{err}
		}
		return nil, err
	}
	vecs, err := h.decode(data, len(texts))
	if err != nil {
		return nil, permanentError{err}
	}
	return vecs, nil
}

func (h *HTTP) decode(data []byte, n int) ([][]float32, error) {
	var vecs [][]float32
	if h.cfg.Provider == "ollama" {
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("read the answer: %w", err)
		}
		vecs = r.Embeddings
	} else {
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("read the answer: %w", err)
		}
		vecs = make([][]float32, len(r.Data))
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= len(vecs) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("the answer has a bad or repeated index %d", d.Index)
			}
			vecs[d.Index] = d.Embedding
		}
	}
	if len(vecs) != n {
		return nil, fmt.Errorf("the answer has %d vectors for %d texts", len(vecs), n)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("vector %d is empty", i)
		}
		if h.dims == 0 {
			h.dims = len(v)
		}
		if len(v) != h.dims {
			return nil, fmt.Errorf("vector %d has %d dimensions, earlier ones %d", i, len(v), h.dims)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("vector %d is not finite", i)
			}
		}
		Normalize(v)
	}
	return vecs, nil
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
