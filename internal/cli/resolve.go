package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type resolveOptions struct {
	force bool
	json  bool
}

func newResolveCmd(env *Env) *cobra.Command {
	var opts resolveOptions
	cmd := &cobra.Command{
		Use:   "resolve [path]...",
		Short: "Re-merge memctl files that a pull or merge left unmerged, from the git index",
		Long: `Resolve finishes a merge that git could not: when a pull or merge stops with
.beads/issues.jsonl unmerged (git status says "both modified"), it reads the
three versions git keeps in the index (base, ours, theirs), merges them record
by record with the same code as the merge driver, and writes the result over
the file. With no path it takes every unmerged memctl file.

This is the repair for a merge driver that git could not run (memctl not on
the PATH git saw): git then keeps only your side of the file, with no
conflict markers, and a plain git add would drop the other side's records.

Resolve does not stage: look at the result (memctl list, git diff), then
git add the file and commit. Until then the task commands read the resolved
file (with a note) and refuse to change it, and resolve run again says the
file is already resolved. Records that both sides changed in the same
field are written between <<<<<<< and >>>>>>> markers, as the merge driver
writes them, and resolve exits 1. Files under .ledger/ have no keyed merge:
resolve names them, to be merged by hand. A file edited since the merge
stopped is refused unless --force.`,
		Example: `  memctl resolve
  memctl resolve .beads/issues.jsonl --json`,
		RunE: func(cmd *cobra.Command, args []string) error { return runResolve(cmd.Context(), env, args, opts) },
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite a file that was edited since the merge stopped")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// resolveJSON is the --json shape of resolve.
type resolveJSON struct {
	SchemaVersion int               `json:"schema_version"`
	Files         []resolveFileJSON `json:"files"`
}

type resolveFileJSON struct {
	Path      string   `json:"path"`
	Result    string   `json:"result"` // merged, resolved, conflicts or manual
	Conflicts []string `json:"conflicts"`
	Issues    int      `json:"issues"`
}

func runResolve(ctx context.Context, env *Env, args []string, opts resolveOptions) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	paths, err := rootRelative(env, ws.Root, args)
	if err != nil {
		return err
	}
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	res, err := tasks.Resolve(ws.Root, paths, opts.force)
	var edited *tasks.EditedError
	switch {
	case errors.Is(err, tasks.ErrNotMemctlFile):
		return usagef(err)
	case errors.As(err, &edited):
		return withHint(err, "run memctl resolve --force "+edited.Path+" to merge from the index anyway, or git add "+edited.Path+" if your edits are the resolution")
	case err != nil:
		return withHint(err, "run git status to see what is unmerged")
	}
	out := resolveJSON{SchemaVersion: schemaVersion, Files: make([]resolveFileJSON, 0, len(res))}
	failed := false
	for _, r := range res {
		out.Files = append(out.Files, resolveFileJSON{Path: r.Path, Result: string(r.Outcome), Conflicts: r.Conflicts, Issues: r.Issues})
		path := visibleLine(r.Path) // a .ledger file name comes from the index
		switch r.Outcome {
		case tasks.Merged:
			env.notef("resolved %s from the index: %s, no conflicts; check it, then git add %s", path, plural(r.Issues, "issue"), path)
		case tasks.Resolved:
			env.notef("%s is already resolved: check it, then git add %s", path, path)
		case tasks.Conflicted:
			failed = true
			for _, id := range r.Conflicts {
				env.notef("conflict in %s: issue %s was changed on both sides", path, visibleLine(id))
			}
			env.notef("keep one version of each record between the markers, then git add %s", path)
		case tasks.Manual:
			failed = true
			env.notef("%s has no keyed merge; merge it by hand (git show :2:%s and :3:%s are the two sides), then git add it", path, path, path)
		}
	}
	if len(res) == 0 {
		env.notef("no memctl file is unmerged; nothing to resolve")
	}
	if opts.json {
		if err := writeJSON(env.Out, out); err != nil {
			return err
		}
	}
	if failed {
		return &silentError{code: exitFailure}
	}
	return nil
}

// rootRelative turns path arguments, relative to the working directory as
// git's are, into slash paths relative to the root.
func rootRelative(env *Env, root string, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	wd, err := env.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find working directory: %w", err)
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, usagef(fmt.Errorf("%s is outside the repository %s", a, root))
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}
