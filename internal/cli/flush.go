package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/hooks"
	"github.com/memctl/memctl/internal/runs"
	runtranscript "github.com/memctl/memctl/internal/runs/transcript"
)

// defaultFlushTimeout is flush's time budget: well under the shortest
// hook timeout it runs under (Claude Code's SessionEnd hooks share 1.5 s
// by default, but a slow disk must not hold up compaction either).
const defaultFlushTimeout = 5 * time.Second

type flushOptions struct {
	timeout string
	quiet   bool
}

func newFlushCmd(env *Env) *cobra.Command {
	var opts flushOptions
	cmd := &cobra.Command{
		Use:   "flush",
		Short: "Record the session from an agent's pre-compaction or session-end hook (prints nothing, exits 0)",
		Long: `Flush is what an agent's PreCompact, PostCompact and SessionEnd hooks run. It
reads the hook's JSON on stdin (or, with none, the session in MEMCTL_SESSION_ID),
mines the session's transcript and writes or merges the session's run record
in .ledger/runs, then brings a progress note up to date on each task you have
in progress. Flushing a session again updates the same record and note.

It never gets in the agent's way: it prints nothing on stdout, at most
warnings on stderr, and always exits 0, within its time budget (--timeout),
outside a workspace, with input it cannot read or a lock held too long
included. A secret in the transcript is written as [REDACTED:<rule>].
The hook lines to paste: memctl help runs, "Flush and hooks".`,
		Example: `  memctl flush < hook-input.json
  MEMCTL_SESSION_ID=abc123 memctl flush --timeout 2s`,
		Args: cobra.ArbitraryArgs,
		// An unknown flag (a hook line written for a newer memctl) must not
		// make flush fail: Claude Code takes exit 2 from PreCompact as "do
		// not compact". Flush reads its flags itself and warns.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			rest, bad := parseFlushFlags(cmd, args)
			if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
				return cmd.Help()
			}
			return runFlush(cmd.Context(), env, opts, append(bad, rest...))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.timeout, "timeout", defaultFlushTimeout.String(), "give up after this long (a duration such as 2s)")
	f.BoolVarP(&opts.quiet, "quiet", "q", false, "print no warnings either")
	return cmd
}

// parseFlushFlags sets flush's flags from args, one at a time, so that a
// flag it does not know, or a bad value, is left out and the rest still
// count: bad are what it left out, rest the arguments that are not flags.
func parseFlushFlags(cmd *cobra.Command, args []string) (rest, bad []string) {
	f := cmd.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i+1:]...), bad
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		fl := f.Lookup(name)
		if fl == nil && len(name) == 1 {
			fl = f.ShorthandLookup(name)
		}
		switch {
		case name == "h" || name == "help":
		case fl == nil:
			bad = append(bad, a)
		case fl.Value.Type() == "bool" && !hasValue:
			_ = fl.Value.Set("true")
		default:
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			if err := fl.Value.Set(value); err != nil {
				bad = append(bad, a)
			}
		}
	}
	return rest, bad
}

// runFlush always returns nil: what goes wrong is a warning.
func runFlush(ctx context.Context, env *Env, opts flushOptions, args []string) (err error) {
	warn := func(format string, a ...any) {
		if !opts.quiet {
			env.warnf("flush: "+format, a...)
		}
	}
	if opts.quiet {
		env.Err = io.Discard // what consolidation notes too
	}
	defer func() {
		if r := recover(); r != nil {
			warn("internal error: %v; the session may not be recorded (please report this)", r)
		}
		err = nil
	}()
	if len(args) > 0 {
		warn("ignoring %q: flush takes --timeout and --quiet, and reads the hook's JSON on stdin", args)
	}
	budget, perr := time.ParseDuration(opts.timeout)
	if perr != nil || budget <= 0 {
		warn("--timeout %q: want a duration such as 5s; using %s", opts.timeout, defaultFlushTimeout)
		budget = defaultFlushTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	hook, herr := readHookInput(ctx, env, budget/5)
	if herr != nil {
		warn("%v; going on without it", herr)
	}
	flushHook(ctx, env, hook, "", budget, warn)
	return nil
}

// flushHook records the session the hook's input names, within budget
// (ctx ends with it): what memctl flush and memctl hook's flush events
// do. runtime, when not "", is the runtime the hook line names, for a
// session whose input and transcript do not tell it. What goes wrong is a
// warning.
func flushHook(ctx context.Context, env *Env, hook runtranscript.HookInput, runtime string, budget time.Duration, warn func(string, ...any)) {
	req, ok := flushRequest(env, hook, warn)
	if !ok {
		return
	}
	if runtime != "" {
		req.Runtime = runtime
	}
	req.ReadBudget = budget * 3 / 4
	res, ferr := runs.Flush(ctx, req)
	var fe *runs.FileError
	for _, w := range res.Warnings {
		warn("%v", w)
	}
	switch {
	case errors.Is(ferr, runs.ErrNoSession):
		warn("%v: nothing recorded", ferr)
	case errors.Is(ferr, context.DeadlineExceeded):
		warn("out of time after %s (the workspace lock was held, or the disk is slow); the session was not recorded, the next flush records it", budget)
	case errors.As(ferr, &fe):
		warn("%v; the session was not recorded: fix %s by hand or move it away (memctl never rewrites a file it cannot read)", ferr, fe.Path)
	case ferr != nil:
		warn("%v; the session was not recorded, the next flush records it", ferr)
	}
}

// hookWorkspace opens the workspace a hook runs for: the one holding
// dir (hooks.Dir: the input's cwd, else $CLAUDE_PROJECT_DIR or
// $GEMINI_PROJECT_DIR), else the working directory. ok is false outside
// a workspace (silently: a session in another repository is not ours)
// or when it cannot be opened (with a warning ending in lost: what that
// costs).
func hookWorkspace(env *Env, cwd, lost string, warn func(string, ...any)) (*config.Workspace, bool) {
	dir := hooks.Dir(cwd, env.Getenv)
	if dir == "" {
		wd, err := env.Getwd()
		if err != nil {
			warn("find working directory: %v", err)
			return nil, false
		}
		dir = wd
	}
	ws, err := config.Open(dir)
	switch {
	case errors.Is(err, config.ErrNoWorkspace), errors.Is(err, gitx.ErrNotRepo):
		return nil, false
	case err != nil:
		warn("%v; %s", err, lost)
		return nil, false
	}
	return ws, true
}

// workspaceLock takes ws's lock as every memctl writer does, until
// release is called.
func workspaceLock(env *Env, ws *config.Workspace) func(context.Context) (func(), error) {
	return func(ctx context.Context) (func(), error) {
		l, err := env.lockAt(ctx, &ws.Config, ws.LockPath())
		if err != nil {
			return nil, err
		}
		return func() { _ = l.Release() }, nil
	}
}

// flushRequest finds the workspace from the hook's cwd (else
// $CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR, the working directory) and
// says what to flush there; ok is false when there is nothing to do:
// outside a workspace, or with the runs layer off (both silently).
func flushRequest(env *Env, hook runtranscript.HookInput, warn func(string, ...any)) (runs.FlushRequest, bool) {
	ws, ok := hookWorkspace(env, hook.Cwd, "nothing recorded", warn)
	if !ok {
		return runs.FlushRequest{}, false
	}
	if !ws.Config.Runs.Enabled {
		return runs.FlushRequest{}, false
	}
	store := runStore(ws)
	store.Now = env.Now // the hook index's carry limit counts by the clock too
	req := runs.FlushRequest{
		Hook:    hook,
		Store:   store,
		Root:    ws.Root,
		Context: runContext(env, ws, true),
		Secrets: ws.Config.Secrets.Policy,
		Lock:    workspaceLock(env, ws),
	}
	if hook.SessionID == "" {
		req.SessionID = env.Getenv("MEMCTL_SESSION_ID")
	}
	switch {
	case env.Getenv("CLAUDE_PROJECT_DIR") != "":
		req.Runtime = runtranscript.RuntimeClaudeCode
	case env.Getenv("GEMINI_PROJECT_DIR") != "" || env.Getenv("GEMINI_SESSION_ID") != "":
		req.Runtime = runtranscript.RuntimeGemini
	case req.SessionID != "":
		req.Runtime = defaultRuntime // as memctl digest --session
	}
	// Under the lock, after the write: candidate playbooks for the errors
	// this session shows fixed, and with [runs] consolidate = true every
	// pattern that recurs across runs (notes on stderr; never a failure).
	rs := &runsSession{ws: ws, store: req.Store}
	req.AfterRecord = func(ctx context.Context, r *runs.Record) {
		env.afterRecord(ctx, rs, r, ws.Config.Runs.Consolidate)
	}
	if ws.Config.Tasks.Enabled {
		req.Tasks = &runs.TaskNotes{Workspace: ws, Cache: tasksCachePath(ws), Actor: env.actor(ws)}
	}
	return req, true
}

// readHookInput reads the hook's JSON from stdin, waiting at most wait
// for it: a hook writes it at once and closes stdin, a terminal is no
// input at all.
func readHookInput(ctx context.Context, env *Env, wait time.Duration) (runtranscript.HookInput, error) {
	none := runtranscript.HookInput{Runtime: runtranscript.RuntimeUnknown}
	if env.StdinTTY || env.In == nil {
		return none, nil
	}
	type result struct {
		in  runtranscript.HookInput
		err error
	}
	ch := make(chan result, 1)
	go func() {
		in, err := runtranscript.ParseHookInput(env.In)
		ch <- result{in, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	select {
	case r := <-ch:
		if r.err != nil {
			return none, r.err
		}
		return r.in, nil
	case <-ctx.Done():
		return none, fmt.Errorf("hook input: stdin was not closed within %s", wait)
	}
}
