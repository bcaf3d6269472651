package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
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
	// Retries is how many times a failed request is tried again, with
	// exponential backoff from 250ms.
	Retries int
	// Client makes the requests; nil uses one with Timeout.
	Client *http.Client
	// Sleep waits between retries; nil uses time.Sleep with ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

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
	cfg.Retries = max(cfg.Retries, 0)
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
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

// permanentError is a failure retrying cannot fix (a 4xx answer).
type permanentError struct{ error }

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
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("HTTP %d: %s", resp.StatusCode, firstLine(data))
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
