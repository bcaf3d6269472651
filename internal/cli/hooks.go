package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/hooks"
)

type hooksOptions struct {
	global, mcp, json, triggered bool
}

func newHooksCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install memctl's hooks into agent runtimes (claude, codex, gemini, cursor, opencode), remove them, or show them",
		Long: `Hooks install merges memctl's hook entries into an agent runtime's settings
file, keeping every other key and entry: the repository's (committed, so
every clone gets them) or, with --global, your own in your home directory.
Installing again changes nothing; a file it changes is first copied to
.git/memctl/backups/<file> (with --global, to <file>.memctl-backup next
to it). With --mcp it also registers memctl's MCP server
(memctl mcp) in the runtime's MCP configuration. Hooks uninstall removes
exactly what install added. Hooks status shows, per runtime and scope,
whether the hooks are installed, not installed, or outdated (they differ
from what install writes). What each runtime gets: memctl help agents.`,
		Example: `  memctl hooks install claude codex
  memctl hooks install gemini --global --mcp
  memctl hooks status --json
  memctl hooks uninstall cursor`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksChangeCmd(env, true), newHooksChangeCmd(env, false), newHooksStatusCmd(env))
	return cmd
}

func newHooksChangeCmd(env *Env, install bool) *cobra.Command {
	var opts hooksOptions
	use, short, example := "install", "Merge memctl's hooks into the runtimes' settings files", "  memctl hooks install claude codex --mcp --json"
	if !install {
		use, short, example = "uninstall", "Remove memctl's hooks from the runtimes' settings files", "  memctl hooks uninstall claude --json"
	}
	cmd := &cobra.Command{
		Use:               use + " <runtime>...",
		ValidArgsFunction: completeRuntimes,
		Short:             short,
		Example:           example,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(fmt.Errorf("name the runtimes: %s", hooks.Names()))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHooksChange(cmd.Context(), env, opts, args, install)
		},
	}
	hooksFlags(cmd, &opts)
	cmd.Flags().BoolVar(&opts.mcp, "mcp", false, "also register (or remove) memctl's MCP server, memctl mcp")
	if install {
		cmd.Flags().BoolVar(&opts.triggered, "triggered", false,
			"also the tool events: what broke before in the files an edit touches, and commands recorded as they run (each runtime as it allows: memctl help agents)")
	}
	return cmd
}

func hooksFlags(cmd *cobra.Command, opts *hooksOptions) {
	cmd.Flags().BoolVar(&opts.global, "global", false, "your own settings in your home directory, not the repository's")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
}

func newHooksStatusCmd(env *Env) *cobra.Command {
	var opts hooksOptions
	cmd := &cobra.Command{
		Use:               "status [runtime]...",
		ValidArgsFunction: completeRuntimes,
		Short:             "Show, per runtime and scope, whether memctl's hooks and MCP server are installed",
		Example:           "  memctl hooks status --json\n  memctl hooks status claude --global",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHooksStatus(env, opts, args)
		},
	}
	hooksFlags(cmd, &opts)
	return cmd
}

// hooksRuntimes looks the named runtimes up, each once; none names all.
// A name may be a comma-separated list ("claude,codex", "claude, codex"),
// as init --agents takes them.
func hooksRuntimes(args []string) ([]*hooks.Runtime, error) {
	var names []string
	for _, a := range args {
		for n := range strings.SplitSeq(a, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return hooks.Runtimes, nil
	}
	var out []*hooks.Runtime
	for _, n := range names {
		rt, ok := hooks.Lookup(n)
		if !ok {
			return nil, usagef(fmt.Errorf("unknown runtime %q: want %s", n, hooks.Names()))
		}
		if !slices.Contains(out, rt) {
			out = append(out, rt)
		}
	}
	return out, nil
}

// globalPlace is the user's scope: $HOME (else %USERPROFILE%).
func globalPlace(env *Env) (hooks.Place, error) {
	home := env.Getenv("HOME")
	if home == "" {
		home = env.Getenv("USERPROFILE")
	}
	if home == "" {
		return hooks.Place{}, withHint(errors.New("--global: $HOME is not set"), "set HOME to your home directory, or leave out --global to install into the repository")
	}
	return hooks.Place{Scope: hooks.Global, Home: home, XDGConfig: env.Getenv("XDG_CONFIG_HOME")}, nil
}

// projectPlace is the workspace's scope; it takes the workspace lock when
// lock is set.
func projectPlace(ctx context.Context, env *Env, lock bool) (hooks.Place, error) {
	ws, err := env.Workspace()
	if err != nil {
		return hooks.Place{}, err
	}
	if lock {
		if err := env.Lock(ctx, ws); err != nil {
			return hooks.Place{}, err
		}
	}
	return projectHooksPlace(ws.Repo), nil
}

// projectHooksPlace is repo's project scope, its backups under the git
// directory (shared by all worktrees), out of the working tree.
func projectHooksPlace(repo *gitx.Repo) hooks.Place {
	return hooks.Place{Scope: hooks.Project, Root: repo.Root, BackupDir: filepath.Join(repo.CommonDir, "memctl", "backups")}
}

func runHooksChange(ctx context.Context, env *Env, opts hooksOptions, names []string, install bool) error {
	rts, err := hooksRuntimes(names)
	if err != nil {
		return err
	}
	var p hooks.Place
	if opts.global {
		p, err = globalPlace(env)
	} else {
		p, err = projectPlace(ctx, env, true)
	}
	if err != nil {
		return err
	}
	change, done := hooks.Install, "installed"
	if !install {
		change, done = hooks.Uninstall, "removed"
	}
	// Each runtime is its own file: one that cannot be changed does not
	// stop the others (a batch, as close a b c).
	b := &batchError{total: len(rts)}
	for _, rt := range rts {
		results, err := change(rt, p, hooks.Options{MCP: opts.mcp, Triggered: opts.triggered})
		for _, r := range results {
			reportHooksChange(env, rt, r, done)
		}
		if err != nil {
			b.failed = append(b.failed, itemError{id: rt.Name, err: hooksError(err, install)})
		}
	}
	if len(b.failed) > 0 {
		return b
	}
	if opts.json {
		return writeJSON(env.Out, hooksStatusJSON{SchemaVersion: schemaVersion, Hooks: hooksRows(rts, []hooks.Place{p})})
	}
	return nil
}

// reportHooksChange says on stderr what one file went through.
func reportHooksChange(env *Env, rt *hooks.Runtime, r hooks.Result, done string) {
	switch {
	case r.Warning != "":
		env.warnf("%s: %s", rt.Name, r.Warning)
	case r.Removed:
		env.notef("%s: %s memctl's entries; nothing else was in %s, so it is removed", rt.Name, done, r.File)
	case r.Changed:
		env.notef("%s: %s in %s", rt.Name, done, r.File)
	default:
		env.notef("%s: %s is already as it should be; nothing changed", rt.Name, r.File)
	}
	if r.Backup != "" {
		env.notef("%s: the file as it was is in %s", rt.Name, r.Backup)
	}
}

// hooksError adds what to do to a file memctl would not change.
func hooksError(err error, install bool) error {
	var fe *hooks.FileError
	if !errors.As(err, &fe) {
		return err
	}
	again := "memctl hooks install"
	if !install {
		again = "memctl hooks uninstall"
	}
	return withHint(err, fmt.Sprintf("fix %s (or move it away), then run %s again; memctl never rewrites a file it cannot read", fe.File, again))
}

// hooksStatusJSON is the --json shape of hooks status, install and
// uninstall.
type hooksStatusJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Hooks         []hooksStateRow `json:"hooks"`
}

type hooksStateRow struct {
	Runtime string `json:"runtime"`
	Scope   string `json:"scope"`
	File    string `json:"file"`
	State   string `json:"state"` // installed, not_installed, outdated, unknown
	// Triggered: the tool events (install --triggered) are installed too.
	Triggered bool   `json:"triggered"`
	MCPFile   string `json:"mcp_file"`
	MCPState  string `json:"mcp_state"`
	Problem   string `json:"problem"` // why a state is unknown; "" otherwise
}

func hooksRows(rts []*hooks.Runtime, places []hooks.Place) []hooksStateRow {
	rows := make([]hooksStateRow, 0, len(rts)*len(places))
	for _, rt := range rts {
		for _, p := range places {
			h, m := hooks.Status(rt, p), hooks.MCPStatus(rt, p)
			problem := h.Problem
			if problem == "" && m.Problem != "" {
				problem = m.File + ": " + m.Problem
			} else if problem != "" {
				problem = h.File + ": " + problem
			}
			rows = append(rows, hooksStateRow{Runtime: rt.Name, Scope: p.Scope, File: h.File, State: h.State, Triggered: h.Triggered,
				MCPFile: m.File, MCPState: m.State, Problem: problem})
		}
	}
	return rows
}

func runHooksStatus(env *Env, opts hooksOptions, names []string) error {
	rts, err := hooksRuntimes(names)
	if err != nil {
		return err
	}
	var places []hooks.Place
	if !opts.global {
		ws, err := env.Workspace()
		switch {
		case err == nil:
			places = append(places, hooks.Place{Scope: hooks.Project, Root: ws.Root})
		case !errors.Is(err, config.ErrNoWorkspace) && !errors.Is(err, gitx.ErrNotRepo):
			return err
		}
	}
	if g, err := globalPlace(env); err == nil {
		places = append(places, g)
	} else if opts.global {
		return err
	}
	rows := hooksRows(rts, places)
	if opts.json {
		return writeJSON(env.Out, hooksStatusJSON{SchemaVersion: schemaVersion, Hooks: rows})
	}
	t := newTable(env, "RUNTIME", "SCOPE", "HOOKS", "MCP", "FILE")
	for _, r := range rows {
		state := hooksStateText(r.State)
		if r.Triggered {
			state += ", with tool events"
		}
		t.row(r.Runtime, r.Scope, state, hooksStateText(r.MCPState), r.File)
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Problem != "" {
			env.warnf("%s (%s): %s", r.Runtime, r.Scope, r.Problem)
		}
	}
	return nil
}

// hooksStateText is a state as a person reads it.
func hooksStateText(s string) string {
	switch s {
	case hooks.NotInstalled:
		return "not installed"
	case hooks.Installed:
		return "installed"
	}
	return s
}
