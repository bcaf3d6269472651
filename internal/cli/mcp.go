package cli

import (
	"context"
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
		Long: `Mcp runs an MCP server on stdin and stdout for agent runtimes that prefer
tools to shell commands. Its tools are prime, recall, ready, task
(create, update, claim, close, comment), propose and record_run; the facts
are resources (memctl://facts, memctl://facts/{category}). Each call does
what the CLI command does, with the same lock and the same refusals: a
refusal is a tool error with the message and the hint the CLI prints.

The workspace is the one holding --dir, else the working directory (agent
runtimes start MCP servers in the project), found again on every call. The
server runs until the client closes stdin. Register it with your runtime:
memctl help agents.`,
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
	dir := opts.dir
	if dir == "" {
		wd, err := env.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if env.StdinTTY {
		env.notef("memctl mcp speaks MCP on stdin and stdout for an agent runtime; register it with yours (memctl help agents), or end it with Ctrl-D")
	}
	s := mcp.New(mcp.Options{Dir: dir, Getenv: env.Getenv, Now: env.Now, Rand: env.Rand, PID: os.Getpid(), Version: Version()})
	return s.Serve(ctx, env.In, env.Out)
}
