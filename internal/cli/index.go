package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

type indexOptions struct {
	rebuild bool
	status  bool
	json    bool
}

func newIndexCmd(env *Env) *cobra.Command {
	var opts indexOptions
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Bring the recall index up to date, rebuild it, or show its status",
		Long: `Index updates recall's index from the workspace's files: only files whose
size or modification time changed are read again, and only their changed
documents are re-indexed. recall does this by itself before each query;
run index to do it ahead of time, --rebuild to start again from the files,
or --status to see what it holds. The index is a cache under the git
directory (shared by worktrees, never committed): deleting it loses nothing.`,
		Example: `  memctl index
  memctl index --status --json
  memctl index --rebuild`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runIndex(cmd.Context(), env, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "throw the index away and build it from the files")
	cmd.Flags().BoolVar(&opts.status, "status", false, "show what the index holds, without updating it")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// indexJSON is the --json shape of index.
type indexJSON struct {
	SchemaVersion int              `json:"schema_version"`
	Status        *indexStatusJSON `json:"status"`
	Update        *indexUpdateJSON `json:"update"`
	TookMS        float64          `json:"took_ms"`
}

func runIndex(ctx context.Context, env *Env, opts indexOptions) error {
	start := env.Now()
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	if opts.rebuild && opts.status {
		return usagef(fmt.Errorf("--rebuild and --status cannot be used together"))
	}
	if !ws.Config.Index.Enabled {
		env.notef("the recall index is disabled ([index] enabled = false in %s)", config.ConfigFile)
		if opts.json {
			return writeJSON(env.Out, indexJSON{SchemaVersion: schemaVersion})
		}
		return nil
	}
	x, err := env.openIndex(ctx, ws)
	if err != nil {
		return err
	}
	if opts.rebuild {
		if err := x.Rebuild(ctx); err != nil {
			return err
		}
	}
	var up *index.UpdateStats
	if !opts.status {
		st, err := x.Update(ctx, ws.Root, env.sources(ws))
		if err != nil {
			return fmt.Errorf("update the recall index: %w", err)
		}
		var down *embed.DownError
		if errors.As(st.EmbedErr, &down) { // the index leaves it to its caller
			env.warnf("%s", visibleLine(down.Error()))
		}
		up = &st
	}
	status, err := x.Status(ctx)
	if err != nil {
		return err
	}
	took := float64(env.Now().Sub(start).Microseconds()) / 1000
	if opts.json {
		var upJSON *indexUpdateJSON
		if up != nil {
			upJSON = toIndexUpdateJSON(*up)
		}
		return writeJSON(env.Out, indexJSON{SchemaVersion: schemaVersion, Status: toIndexStatusJSON(status), Update: upJSON, TookMS: took})
	}
	if up != nil {
		fmt.Fprintf(env.Out, "updated: %d files read, %d removed; %d documents added, %d changed, %d deleted; %d vectors made\n",
			up.Read, up.Removed, up.Added, up.Changed, up.Deleted, up.Embedded)
		if up.Missing > 0 {
			fmt.Fprintf(env.Out, "%d documents have no vector yet (the embedder failed)\n", up.Missing)
		}
	}
	kinds := make([]string, 0, len(status.Kinds))
	for k, n := range status.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(env.Out, "index: %d documents (%s), %d vectors by %s, from %d files\n",
		status.Docs, strings.Join(kinds, ", "), status.Vectors, status.Embedder, status.Files)
	fmt.Fprintf(env.Out, "in %s\n", status.Dir)
	return nil
}
