package embed

import (
	"time"

	"github.com/memctl/memctl/internal/config"
)

// FromConfig makes the embedder an [embed] table asks for: the built-in
// one, none (nil: recall by words only), or an HTTP provider whose key is
// read from the environment variable the table names (getenv), never from
// the file.
func FromConfig(cfg config.Embed, getenv func(string) string) (Embedder, error) {
	switch cfg.Provider {
	case "", config.DefaultEmbed:
		return NewStatic(Corpus{}), nil
	case "none":
		return nil, nil
	}
	key := ""
	if cfg.APIKeyEnv != "" {
		key = getenv(cfg.APIKeyEnv)
	}
	h, err := NewHTTP(HTTPConfig{
		Provider: cfg.Provider, URL: cfg.URL, Model: cfg.Model, APIKey: key, Batch: cfg.Batch,
		Timeout: time.Duration(cfg.TimeoutSeconds * float64(time.Second)), Retries: cfg.Retries,
	})
	if err != nil {
		// Not h: a nil *HTTP in an Embedder is not a nil Embedder.
		return nil, err
	}
	return h, nil
}
