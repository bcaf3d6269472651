package doctor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// indexChecks checks the recall index, read only and without its lock:
// whether it can be read (index.Verify: SQLite's check, the word index's
// checksums) and how it compares with the files (index.Check). A damaged
// index is a problem Fix rebuilds from the files; a stale one is fine
// (the next recall updates it), and one that the next use rebuilds by
// itself (another format or embedder, an interrupted update) a warning.
func (c *collector) indexChecks(ctx context.Context, ws *config.Workspace, env Env) {
	if !ws.Config.Index.Enabled {
		c.add(Check{ID: IDIndex, Status: OK, Message: "the recall index is disabled ([index] enabled = false)"})
		return
	}
	dir := env.IndexDir(ws)
	shown := (&fixer{repo: ws.Repo}).shown(dir)
	rebuild := func(ctx context.Context, f *fixer) (string, error) {
		emb, err := f.env.Embedder(f.ws)
		if err != nil {
			return "", err
		}
		x, err := index.Open(ctx, index.Options{Dir: dir, Embedder: emb, Notice: f.env.Notice, Repo: f.repo, Holder: f.env.Holder})
		if err != nil {
			return "", err
		}
		defer x.Close()
		if err := x.Rebuild(ctx); err != nil {
			return "", err
		}
		st, err := x.Update(ctx, f.ws.Root, f.env.Sources(f.ws))
		if err != nil {
			return "", fmt.Errorf("update the recall index: %w", err)
		}
		return fmt.Sprintf("rebuilt the recall index from the files: %d documents", st.Added), nil
	}
	h, err := index.Verify(ctx, dir)
	if err != nil {
		c.add(Check{ID: IDIndex, Status: Problem, File: shown, Message: err.Error(), Hint: "make the directory readable, or delete it: the index is a cache, rebuilt from the files"})
		return
	}
	if h.Damage != "" {
		c.add(Check{ID: IDIndex, Status: Problem, File: shown, Message: "the recall index is damaged: " + h.Damage,
			Hint: "memctl doctor --fix (or memctl index --rebuild) builds it again from the files; recall also rebuilds it on its next use", Fixable: true, fix: rebuild})
		return
	}
	f, err := index.Check(ctx, dir, ws.Root, env.Sources(ws))
	switch {
	case err != nil:
		c.add(Check{ID: IDIndex, Status: Problem, File: shown, Message: "the recall index cannot be read: " + err.Error(),
			Hint: "memctl doctor --fix rebuilds it from the files", Fixable: true, fix: rebuild})
	case !f.Present:
		c.add(Check{ID: IDIndex, Status: OK, File: shown, Message: "the recall index is not built yet: the first recall (or memctl index) builds it"})
	case f.Rebuild != "":
		c.add(Check{ID: IDIndex, Status: Warn, File: shown, Message: "the next recall rebuilds the index: " + f.Rebuild,
			Hint: "memctl doctor --fix (or memctl index --rebuild) does it now", Fixable: true, fix: rebuild})
	case f.Changed > 0:
		c.add(Check{ID: IDIndex, Status: OK, File: shown, Message: fmt.Sprintf("%d documents, %d files changed since the last update (the next recall reads them)", h.Docs, f.Changed)})
	default:
		c.add(Check{ID: IDIndex, Status: OK, File: shown, Message: fmt.Sprintf("%d documents, up to date with the files", h.Docs)})
	}
	if h.Docs > 0 && h.Vectors < h.Docs && h.Embedder != "none" {
		c.add(Check{ID: IDIndex, Status: Warn, File: shown,
			Message: fmt.Sprintf("%d of %d documents have no vector of %s (the embedder failed when they were indexed): recall finds them by words only", h.Docs-h.Vectors, h.Docs, h.Embedder),
			Hint:    "the next recall or memctl index tries again; memctl doctor says whether the embedder answers"})
	}
}

// embedder checks the configured embedder: the built-in one (and none)
// always answers; an HTTP one is asked to embed a word, once, with a
// short timeout. An embedder that cannot be made (a bad [embed] table,
// a user config that does not load) or does not answer is a problem:
// recall falls back to words. One that answers clears recall's memory of
// its failure (embed.Guard), so recall uses it again at once.
func (c *collector) embedder(ctx context.Context, ws *config.Workspace, env Env, timeout time.Duration) {
	if !ws.Config.Index.Enabled {
		return
	}
	emb, err := env.Embedder(ws)
	switch {
	case err != nil:
		c.add(Check{ID: IDEmbedder, Status: Problem, Message: err.Error(),
			Hint: "fix [embed] in " + config.ConfigFile + " or in your own config (memctl help config); until then recall finds by words only"})
		return
	case emb == nil:
		c.add(Check{ID: IDEmbedder, Status: OK, Message: "no embedder ([embed] provider = none): recall finds by words only"})
		return
	}
	h, ok := emb.(*embed.HTTP)
	if !ok {
		c.add(Check{ID: IDEmbedder, Status: OK, Message: emb.ID() + ": the built-in embedder, offline"})
		return
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = h.Embed(pctx, []string{"memctl doctor"})
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(pctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v", timeout)
	}
	if err != nil {
		c.add(Check{ID: IDEmbedder, Status: Problem, Message: fmt.Sprintf("%s at %s does not answer: %v", h.ID(), h.URL(), err),
			Hint: "start the server (or fix [embed] url and model); until then recall finds by words only, and documents indexed meanwhile get their vectors later"})
		return
	}
	// It answers: recall need not wait out the minute it skips an
	// embedder that failed (embed.Guard). Failing to forget costs only
	// that minute.
	_ = embed.Forget(filepath.Join(env.IndexDir(ws), embed.DownFile), h.ID(), h.URL())
	c.add(Check{ID: IDEmbedder, Status: OK, Message: fmt.Sprintf("%s at %s answers", h.ID(), h.URL())})
}
