package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/agents"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/hooks"
)

type initOptions struct {
	prefix   string
	claudeMD bool
	agents   []string
	bdAlias  string
	force    bool
	json     bool
}

func newInitCmd(env *Env) *cobra.Command {
	var opts initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set up memctl in this git repository",
		Long: `Init creates the memctl workspace at the top of the git repository that holds
the current directory: .ledger/ (config.toml, facts, proposals, runs,
playbooks), an empty .beads/issues.jsonl, the merge line in .gitattributes,
a memctl block in AGENTS.md and, if there is none, a CLAUDE.md that imports
AGENTS.md. It never overwrites a file; run it again at any time to add what
is missing or refresh an outdated AGENTS.md block. An existing CLAUDE.md
that does not import AGENTS.md gets a warning; --claude-md adds the line
@AGENTS.md to it. --agents also installs memctl's hooks into those agent
runtimes' project settings, as memctl hooks install does. --bd-alias DIR
links DIR/bd to memctl, so that an agent told to run "bd ready --json"
runs memctl in bd's drop-in mode (memctl help beads).`,
		Example: `  memctl init
  memctl init --prefix api
  memctl init --claude-md
  memctl init --agents claude,codex
  memctl init --bd-alias ~/.local/bin
  memctl init --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInit(cmd.Context(), env, opts) },
	}
	cmd.Flags().StringVar(&opts.prefix, "prefix", "", "task-id `prefix` (default: bd's issue-prefix in .beads/config.yaml, else the prefix of the existing issues, else the repository directory's name)")
	cmd.Flags().BoolVar(&opts.claudeMD, "claude-md", false, "add @AGENTS.md to an existing CLAUDE.md that does not import it")
	cmd.Flags().StringSliceVar(&opts.agents, "agents", nil, "also install memctl's hooks for these `runtimes` (claude, codex, gemini, cursor, opencode)")
	cmd.Flags().StringVar(&opts.bdAlias, "bd-alias", "", "also link `dir`/bd to memctl (bd's drop-in mode)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "with --bd-alias, replace a bd that is not memctl's link")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// initJSON is the --json shape of init.
type initJSON struct {
	SchemaVersion int      `json:"schema_version"`
	Root          string   `json:"root"`
	Prefix        string   `json:"prefix"`
	Changed       bool     `json:"changed"`
	Created       []string `json:"created"`
	Updated       []string `json:"updated"`
	// MergeDriverOK says that a trial run of merge.memctl.driver, as git
	// would run it, succeeded.
	MergeDriverOK bool `json:"merge_driver_ok"`
}

func runInit(ctx context.Context, env *Env, opts initOptions) error {
	if opts.prefix != "" && !config.ValidPrefix(opts.prefix) {
		return usagef(fmt.Errorf("--prefix %q: use 1 to 32 letters, digits, '-' or '_', starting with a letter or digit", opts.prefix))
	}
	rts, err := initRuntimes(opts.agents)
	if err != nil {
		return err
	}
	var alias *bdAlias
	makeAlias := false
	if opts.bdAlias != "" {
		if alias, makeAlias, err = planBdAlias(opts.bdAlias, opts.force); err != nil {
			return err
		}
	} else if opts.force {
		return usagef(errors.New("--force goes with --bd-alias"))
	}
	dir, err := env.Getwd()
	if err != nil {
		return err
	}
	repo, err := config.Find(dir)
	if err != nil {
		return err
	}
	if _, err := env.lockAt(ctx, nil, config.LockPath(repo)); err != nil {
		return err
	}
	if err := agents.Plan(repo.Root); err != nil {
		return withHint(err, "keep one block between "+agents.BeginMarker+" and "+agents.EndMarker+" in AGENTS.md, then run memctl init again")
	}
	place := projectHooksPlace(repo)
	if err := planHooks(rts, place); err != nil {
		return err
	}
	res, err := config.Init(repo, opts.prefix)
	if err != nil {
		return err
	}
	ag, err := agents.Install(repo.Root, agents.Options{ClaudeMD: opts.claudeMD})
	if err != nil {
		return err
	}
	created := append(res.Created, ag.Created...)
	updated := append(res.Updated, ag.Updated...)
	// The hooks' files are said per runtime as hooks install says them,
	// and listed with the others in the JSON.
	var hookCreated, hookUpdated []string
	for _, rt := range rts {
		results, err := hooks.Install(rt, place, hooks.Options{})
		for _, r := range results {
			if r.Changed || r.Warning != "" { // init's last line says when nothing changed
				reportHooksChange(env, rt, r, "installed")
			}
			switch {
			case r.Changed && r.Backup == "":
				hookCreated = append(hookCreated, r.File)
			case r.Changed:
				hookUpdated = append(hookUpdated, r.File)
			}
		}
		if err != nil {
			return hooksError(err, true)
		}
	}
	wrote, driverErr := gitx.RegisterMergeDriver(ctx, repo.Root)
	if wrote {
		updated = append(updated, ".git/config (merge.memctl.driver)")
	}
	if makeAlias {
		if err := alias.make(); err != nil {
			return err
		}
		created = append(created, alias.path)
	}
	for _, w := range append(res.Warnings, ag.Warnings...) {
		env.warnf("%s", w)
	}
	if driverErr != nil {
		warnMergeDriver(env, driverErr)
	}
	for _, p := range created {
		env.notef("created %s", p)
	}
	for _, p := range updated {
		env.notef("updated %s", p)
	}
	created, updated = append(created, hookCreated...), append(updated, hookUpdated...)
	changed := len(created)+len(updated) > 0
	// What init writes under .git is this clone's alone: nothing to commit.
	committable := slices.ContainsFunc(append(created, updated...), func(p string) bool {
		return !strings.HasPrefix(p, ".git/") && (alias == nil || p != alias.path)
	})
	switch {
	case committable && res.PrefixSource != "" && res.PrefixSource != config.PrefixFromDirectory:
		env.notef("initialised memctl in %s (task prefix %q, as in %s); commit the new files", repo.Root, res.Prefix, res.PrefixSource)
	case committable:
		env.notef("initialised memctl in %s (task prefix %q); commit the new files", repo.Root, res.Prefix)
	case changed:
		env.notef("set up this clone of %s for memctl; nothing to commit", repo.Root)
	default:
		env.notef("already initialised in %s; nothing changed", repo.Root)
	}
	if opts.json {
		return writeJSON(env.Out, initJSON{SchemaVersion: schemaVersion, Root: repo.Root, Prefix: res.Prefix, Changed: changed,
			Created: nonNil(created), Updated: nonNil(updated), MergeDriverOK: driverErr == nil})
	}
	return nil
}

// initRuntimes looks up --agents before init writes anything.
func initRuntimes(names []string) ([]*hooks.Runtime, error) {
	if len(names) == 0 {
		return nil, nil
	}
	rts, err := hooksRuntimes(names)
	if err != nil {
		return nil, usagef(fmt.Errorf("--agents: %w", errors.Unwrap(err)))
	}
	return rts, nil
}

// planHooks refuses, before init writes anything, a runtime's settings
// file that hooks install would refuse.
func planHooks(rts []*hooks.Runtime, p hooks.Place) error {
	for _, rt := range rts {
		if st := hooks.Status(rt, p); st.State == hooks.Unknown {
			return withHint(fmt.Errorf("%s: %s", st.File, st.Problem),
				fmt.Sprintf("fix %s (or move it away), then run memctl init again; memctl never rewrites a file it cannot read", st.File))
		}
	}
	return nil
}

// nonNil turns a nil slice into an empty one, so JSON says [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// warnMergeDriver says loudly that git cannot merge .beads/issues.jsonl
// with memctl, what that costs and how to fix it.
func warnMergeDriver(env *Env, err error) {
	env.warnf("%v", err)
	env.warnf("until this is fixed, a pull or merge that changes .beads/issues.jsonl on both sides stops with the file unmerged: " +
		"it holds only your side, with no conflict markers. Run memctl resolve then, never git add alone (memctl check fails until it is resolved)")
	env.warnf("to fix: put memctl on PATH and run memctl init again, or set it yourself: git config merge.memctl.driver %s",
		gitx.ShellQuote(gitx.DriverCommand("/path/to/memctl")))
}
