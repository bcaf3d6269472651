// Command memctl gives coding agents a memory that survives context
// compaction, kept in plain files in the user's git repository.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/memctl/memctl/internal/cli"
)

func main() {
	// memctl runs for milliseconds, many times a session, and allocates
	// little: collect garbage only when the heap nears 128 MiB instead of
	// every time it doubles. A GOGC or GOMEMLIMIT set by the user wins.
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(128 << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.SystemEnv())
	stop()
	os.Exit(code)
}
