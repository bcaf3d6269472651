package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/tasks"
)

func newMergeDriverCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver <base> <ours> <theirs> [path]",
		Short: "Git merge driver for .beads/issues.jsonl: a keyed three-way merge by issue id",
		Long: `Merge-driver is what git runs to merge .beads/issues.jsonl when
.gitattributes says "merge=memctl" (memctl init sets both up, with the
binary's absolute path, so that git finds it whatever its PATH). It merges
record by record, keyed by issue id, writes the result over <ours>, and exits
0 when clean or 1 when some records conflict; those appear between
<<<<<<< and >>>>>>> markers, one record per side.`,
		Example: `  git config merge.memctl.driver "/usr/local/bin/memctl merge-driver %O %A %B %P"
  memctl merge-driver base.jsonl ours.jsonl theirs.jsonl .beads/issues.jsonl`,
		Args: cobra.RangeArgs(3, 4),
		RunE: func(cmd *cobra.Command, args []string) error { return runMergeDriver(cmd.Context(), env, args) },
	}
}

func runMergeDriver(_ context.Context, env *Env, args []string) error {
	name := ".beads/issues.jsonl"
	if len(args) == 4 {
		name = args[3]
	}
	var vers [3][]byte
	for i, p := range args[:3] {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("merge %s: %w", name, err)
		}
		vers[i] = b
	}
	res, err := tasks.Merge(vers[0], vers[1], vers[2])
	if err != nil {
		// Exit 2, not 1: git shows a conflict either way, but scripts can
		// tell a driver failure from conflicting records.
		fmt.Fprintf(env.Err, "memctl: error: merge %s: %v\n", name, err)
		fmt.Fprintln(env.Err, "memctl: hint: a version has a line memctl cannot read; merge this file by hand")
		return &silentError{code: exitUsage}
	}
	if err := fsx.WriteFile(args[1], res.Data, 0o644); err != nil {
		return err
	}
	if len(res.Conflicts) > 0 {
		for _, id := range res.Conflicts {
			fmt.Fprintf(env.Err, "memctl: conflict in %s: issue %s was changed on both sides\n", name, id)
		}
		env.notef("keep one version of each record between the markers, then git add %s", name)
		return &silentError{code: exitFailure}
	}
	return nil
}
