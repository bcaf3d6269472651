package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/mcp"
)

type mcpOptions struct {
	dir string
}

func newMCPCmd(env *Env) *cobra.Command {
	var opts mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve memctl's tools to an agent over MCP (stdio)",
		Long: `memctl mcp runs an MCP server on stdin and stdout for agent runtimes that
prefer tools to shell commands. Its tools are prime, recall, ready, task
(create, update, claim, close, comment), propose and record_run; the facts
are resources (memctl://facts, memctl://facts/{category}). Each call does
what the CLI command does, with the same lock and the same refusals: a
refusal is a tool error with the message and the hint the CLI prints.

The workspace is the one holding --dir, else $CLAUDE_PROJECT_DIR (which
Claude Code sets for its servers), else the working directory (the other
runtimes start MCP servers in the project); it is found again on every
call; a --dir or $CLAUDE_PROJECT_DIR that is not a directory is refused at
the start. The server runs until the client closes stdin, answering every
request read before it, and exits 0. Register it with your runtime: memctl
help agents.`,
		Example: `  memctl mcp
  claude mcp add memctl -- memctl mcp
  memctl mcp --dir ~/src/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCP(cmd.Context(), env, opts) },
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "find the workspace from `path` instead of the working directory")
	return cmd
}

func runMCP(ctx context.Context, env *Env, opts mcpOptions) error {
	dir, err := mcpDir(env, opts.dir)
	if err != nil {
		return err
	}
	if env.StdinTTY {
		env.notef("memctl mcp speaks MCP on stdin and stdout for an agent runtime; register it with yours (memctl help agents), or end it with Ctrl-D")
	}
	s := mcp.New(mcp.Options{Dir: dir, Getenv: env.Getenv, Now: env.Now, Rand: env.Rand, PID: os.Getpid(), Version: Version()})
	return s.Serve(ctx, env.In, env.Out)
}

// mcpDir is where the server looks for the workspace: --dir, else the
// project Claude Code started it for ($CLAUDE_PROJECT_DIR, set in its
// stdio servers' environment), else the working directory, which the
// other runtimes start their servers in. A directory named that does not
// exist is refused here, once, rather than by every call as "not inside a
// git repository".
func mcpDir(env *Env, flag string) (string, error) {
	dir, from := flag, "--dir"
	if dir == "" {
		dir, from = env.Getenv("CLAUDE_PROJECT_DIR"), "$CLAUDE_PROJECT_DIR"
	}
	if dir == "" {
		return env.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", withHint(&notFoundError{fmt.Errorf("%s %s: no such directory", from, dir)},
			"give the repository's directory, or one inside it")
	case err != nil:
		return "", fmt.Errorf("%s %s: %w", from, dir, err)
	case !fi.IsDir():
		return "", withHint(usagef(fmt.Errorf("%s %s: not a directory", from, dir)),
			"give the repository's directory, or one inside it")
	}
	return abs, nil
}
