package embed

import (
	"testing"

	"github.com/memctl/memctl/internal/config"
)

func TestFromConfig(t *testing.T) {
	env := func(k string) string { return map[string]string{"MY_KEY": "k-123"}[k] }
	e, err := FromConfig(config.Embed{Provider: config.DefaultEmbed}, env)
	if _, ok := e.(*Static); err != nil || !ok {
		t.Errorf("builtin: %T, %v", e, err)
	}
	if e, err := FromConfig(config.Embed{Provider: "none"}, env); e != nil || err != nil {
		t.Errorf("none: %v, %v; want no embedder", e, err)
	}
	e, err = FromConfig(config.Embed{Provider: "openai", URL: "http://127.0.0.1:1", Model: "m", APIKeyEnv: "MY_KEY", Batch: 8, TimeoutSeconds: 1.5, Retries: 2}, env)
	h, ok := e.(*HTTP)
	if err != nil || !ok {
		t.Fatalf("openai: %T, %v", e, err)
	}
	if h.cfg.APIKey != "k-123" || h.cfg.Batch != 8 || h.cfg.Retries != 2 || h.cfg.Timeout.Seconds() != 1.5 {
		t.Errorf("openai config = %+v", h.cfg)
	}
}
