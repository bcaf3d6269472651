package app

import (
	"context"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/doctor"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
)

// DoctorEnv is what doctor.Run takes from a front-end: the embedder,
// index and lock as every other command makes them. It needs no Session:
// doctor loads the workspace itself, as far as it loads.
func DoctorEnv(opts Options) doctor.Env {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	return doctor.Env{
		Embedder: func(ws *config.Workspace) (embed.Embedder, error) { return embedderFor(ws, opts) },
		Sources:  Sources,
		IndexDir: IndexDir,
		Lock: func(ctx context.Context, ws *config.Workspace) (*fsx.Lock, error) {
			return AcquireLock(ctx, ws.LockPath(), &ws.Config, opts)
		},
		Holder: opts.holder(),
		Notice: opts.Notice,
	}
}
