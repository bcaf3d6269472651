// Command memctl gives coding agents a memory that survives context
// compaction, kept in plain files in the user's git repository.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/memctl/memctl/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.SystemEnv())
	stop()
	os.Exit(code)
}
