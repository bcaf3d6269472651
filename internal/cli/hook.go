package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/hooks"
	"github.com/memctl/memctl/internal/prime"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
	runtranscript "github.com/memctl/memctl/internal/runs/transcript"
	"github.com/memctl/memctl/internal/trigger"
)

// A hook's time budget is defaultFlushTimeout (5 s): under every timeout
// memctl hooks install writes (10 s for session start and end, 30 s
// around a compaction).

func newHookCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:               "hook <runtime> <event>",
		ValidArgsFunction: completeHookArgs,
		Short:             "Answer an agent runtime's hook: the context pack at session start, a flush otherwise (always exits 0)",
		Long: `Hook is what the entries memctl hooks install writes run: runtime is claude,
codex, gemini, cursor or opencode, event is session-start, pre-compact,
post-compact, session-end, stop, pre-tool-use or post-tool-use. It reads the runtime's hook JSON on
stdin and finds the workspace from its cwd (else $CLAUDE_PROJECT_DIR or
$GEMINI_PROJECT_DIR, else the working directory).

session-start prints the context pack (what memctl prime prints, cut to
9,500 characters) in the runtime's envelope: {"hookSpecificOutput":
{"hookEventName":"SessionStart","additionalContext":"…"}} for Claude Code,
Codex and Gemini CLI, {"additional_context":"…"} for Cursor, the text for
OpenCode's plugin; outside a workspace the envelope is empty. The other
events record the session as memctl flush does (post-compact keeps the
compaction's summary in the run record) and print nothing, except Codex's
stop, which prints {"continue":true}.

pre-tool-use (Claude Code's and Codex's PreToolUse) looks at the files the
tool will touch and, when past runs failed in them, prints
{"hookSpecificOutput":
{"hookEventName":"PreToolUse","additionalContext":"…"}} with the runs and
playbooks, once per file and session; otherwise
nothing. Runtimes whose pre-tool event cannot carry a text get {} (Gemini
CLI, Cursor) and the warning comes after the edit. post-tool-use records a
shell command in the session's run record at once, with its exit status
and, when it failed, its error; when that error's signature has an
approved playbook, the agent gets the playbook in the runtime's envelope
(AfterTool's for Gemini CLI, {"additional_context":"…"} for Cursor, the
text for OpenCode's plugin). After an edit it gives the warning
pre-tool-use would have. Neither ever blocks the tool.

A hook must never get in the agent's way: hook exits 0 whatever happens,
with at most one warning on stderr, within a 5-second budget.`,
		Example: `  memctl hook claude session-start < input.json
  memctl hook codex stop < input.json`,
		Args: cobra.ArbitraryArgs,
		// An unknown flag (a hook line written for a newer memctl) must not
		// make the hook fail: hook reads no flags at all.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
				return cmd.Help()
			}
			return runHook(cmd.Context(), env, args)
		},
	}
}

// runHook always returns nil: what goes wrong is one warning. A session
// start prints its envelope whatever happens (empty if need be): Codex
// and Gemini CLI take a hook that exits 0 without JSON for a failure.
//
// The work runs under the budget in its own goroutine, and runHook
// returns when the budget is spent or ctx ends (SIGTERM: the agent gave
// up on the hook) even if the work does not notice: what it is doing is
// then cut short by the process's exit (writes are atomic, the lock is
// the kernel's and goes with the process).
func runHook(ctx context.Context, env *Env, args []string) (err error) {
	env.Err = &oneLineWriter{w: env.Err}
	warn := func(format string, a ...any) { env.warnf("hook: "+format, a...) }
	defer func() {
		if r := recover(); r != nil {
			warn("internal error: %v (please report this)", r)
		}
		err = nil
	}()
	rt, event, ok := hookArgs(args, warn)
	if !ok {
		return nil
	}
	// What the hook prints when it has nothing better: the empty envelope
	// at session start, Codex's {"continue":true} at stop, the empty answer
	// of a tool event (Gemini CLI and Cursor: {}), else nothing.
	fallback := hooks.FlushOutput(rt, event)
	switch hooks.ActionOf(event) {
	case hooks.ActionPrime:
		fallback = hooks.SessionStartOutput(rt, "")
	case hooks.ActionWarn, hooks.ActionRecord:
		fallback = hooks.ToolFallback(rt, event)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultFlushTimeout)
	defer cancel()
	done := make(chan []byte, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				warn("internal error: %v (please report this)", r)
				done <- fallback
			}
		}()
		done <- hookAnswer(ctx, env, rt, event, warn)
	}()
	out := fallback
	select {
	case out = <-done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			warn("out of time after %s; the agent goes on without this hook", defaultFlushTimeout)
		}
	}
	_, _ = env.Out.Write(out)
	return nil
}

// hookAnswer does what event does and returns what the hook prints.
func hookAnswer(ctx context.Context, env *Env, rt *hooks.Runtime, event string, warn func(string, ...any)) []byte {
	in, herr := readHookInput(ctx, env, defaultFlushTimeout/5)
	if herr != nil {
		warn("%v; going on without it", herr)
	}
	if a := hooks.ActionOf(event); rt.Name == "claude" && in.Runtime == runtranscript.RuntimeCursor && (a == hooks.ActionWarn || a == hooks.ActionRecord) {
		// Cursor runs Claude Code's hooks too (on by default), with its own
		// payloads: a tool event is answered as Cursor's ({} rather than
		// nothing, which blocks the tool in some of its builds) and
		// recorded as Cursor's session.
		rt, _ = hooks.Lookup("cursor")
	}
	switch hooks.ActionOf(event) {
	case hooks.ActionPrime:
		return hooks.SessionStartOutput(rt, hookContext(ctx, env, in, warn))
	case hooks.ActionWarn:
		if !rt.WarnsBefore() {
			// Nothing said here could reach the agent: the warning comes
			// with the tool's result (post-tool-use), and is not spent here.
			return hooks.ToolOutput(rt, event, in.Event, "")
		}
		return hooks.ToolOutput(rt, event, in.Event, toolHook(ctx, env, rt, in, false, warn))
	case hooks.ActionRecord:
		return hooks.ToolOutput(rt, event, in.Event, toolHook(ctx, env, rt, in, true, warn))
	}
	flushHook(ctx, env, in, rt.RunRuntime, defaultFlushTimeout, warn)
	return hooks.FlushOutput(rt, event)
}

// toolHook is what a tool event's hook tells the agent ("" for nothing),
// in the workspace of the hook's cwd (with the runs layer on):
//
//   - before a tool (after false): toolWarning for the files it touches;
//   - after a shell command: the command recorded (toolRecord), and a
//     failure's playbook;
//   - after an edit, for runtimes whose pre-tool event cannot say what
//     broke before: the warning with its result, once per file and session
//     as before a tool, and the files in the session's run record. Not for
//     an edit that failed: the runtime hands its model the error alone,
//     and the warning would be spent unread.
func toolHook(ctx context.Context, env *Env, rt *hooks.Runtime, in runtranscript.HookInput, after bool, warn func(string, ...any)) string {
	var run runtranscript.ShellRun
	shell := false
	if after {
		if run, shell = runtranscript.ShellCall(in, rt.Name); !shell && runtranscript.ToolFailed(in) {
			return ""
		}
	}
	lost := "the tool runs without memctl's warnings"
	if shell {
		lost = "nothing recorded"
	}
	ws, ok := hookWorkspace(env, in.Cwd, lost, warn)
	if !ok || !ws.Config.Runs.Enabled {
		return ""
	}
	if shell {
		return toolRecord(ctx, env, rt, in, ws, run, warn)
	}
	files := trigger.Files(in.ToolName, in.ToolInput, in.Cwd, ws.Root)
	if len(files) == 0 {
		return ""
	}
	text := toolWarning(env, rt, in, ws, files, warn)
	if after {
		req := toolCallRequest(env, ws, rt, in)
		req.Files = files
		if _, err := runs.RecordToolCall(ctx, req); err != nil {
			warn("%v", err)
		}
	}
	return text
}

// toolWarning is the failed runs and playbooks of files, the files a tool
// touches, that this session has not been told about yet (trigger), else
// "".
func toolWarning(env *Env, rt *hooks.Runtime, in runtranscript.HookInput, ws *config.Workspace, files []string, warn func(string, ...any)) string {
	seen := trigger.SeenFor(filepath.Join(ws.Repo.GitDir, "memctl", "triggered"), rt.Name, in.SessionID)
	files = seen.New(files)
	if len(files) == 0 {
		return ""
	}
	store := app.RunStore(ws)
	store.Now = env.Now
	req := runs.WarnRequest{Files: files, PlaybooksDir: ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir}
	// From a small index: nothing ever failed in these files is the common
	// case, and otherwise only the runs it names are read.
	res, err := store.WarnIndexed(req)
	if err != nil {
		warn("past failures could not be read: %v", err)
		return ""
	}
	text := trigger.Text(res)
	if text == "" {
		return "" // nothing to say: a file without a past is asked again (a failure may come later)
	}
	if err := seen.Add(files); err != nil {
		warn("could not remember the warning: %v", err)
	}
	return text
}

// toolRecord records run, the shell command a post-tool-use hook reports,
// in the session's run record at once and, when it failed and its
// error's signature has an approved playbook, returns the playbook for
// the agent (else ""). A runtime that does not pass the exit status
// (Codex) leaves it unknown; its output is taken for a failure only when
// it has the signature of an approved playbook: a failure memctl knows.
func toolRecord(ctx context.Context, env *Env, rt *hooks.Runtime, in runtranscript.HookInput, ws *config.Workspace, run runtranscript.ShellRun, warn func(string, ...any)) string {
	books := ws.Path(config.PlaybooksDir)
	req := toolCallRequest(env, ws, rt, in)
	req.Command, req.ExitCode = run.Command, run.ExitCode
	playbook := ""
	switch {
	case run.Failed:
		req.ErrorText = run.Output
	case run.ExitCode < 0 && run.Output != "":
		sig := signature.Of(run.Output).Hash
		if playbook = trigger.PlaybookText(books, config.PlaybooksDir, sig); playbook != "" {
			req.ErrorText, req.Signature = run.Output, sig
		}
	}
	sig, err := runs.RecordToolCall(ctx, req)
	if err != nil {
		warn("%v", err)
	}
	if sig == "" || playbook != "" {
		return playbook
	}
	return trigger.PlaybookText(books, config.PlaybooksDir, sig)
}

// toolCallRequest is the request that records a tool call of in's session
// in ws's run store, under the workspace lock.
func toolCallRequest(env *Env, ws *config.Workspace, rt *hooks.Runtime, in runtranscript.HookInput) runs.ToolCallRequest {
	store := runStore(ws)
	store.Now = env.Now
	return runs.ToolCallRequest{SessionID: cmp.Or(in.SessionID, env.Getenv("MEMCTL_SESSION_ID")), Runtime: rt.RunRuntime,
		Store: store, Context: runContext(env, ws, true), Lock: workspaceLock(env, ws), Secrets: ws.Config.Secrets.Policy}
}

// hookArgs reads the runtime and the event, the first two arguments that
// are not flags; ok is false (with a warning) when they are not ones
// memctl knows. Flags and further arguments are ignored without a word:
// a hook line written for a newer memctl (--budget=5) still runs.
func hookArgs(args []string, warn func(string, ...any)) (*hooks.Runtime, string, bool) {
	var pos []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
		}
	}
	if len(pos) < 2 {
		warn("want a runtime and an event (memctl hook claude session-start), got %q", args)
		return nil, "", false
	}
	rt, ok := hooks.Lookup(pos[0])
	if !ok {
		warn("unknown runtime %q: want %s", pos[0], hooks.Names())
		return nil, "", false
	}
	if !hooks.ValidEvent(pos[1]) {
		warn("unknown event %q: want %s", pos[1], strings.Join(hooks.Events, ", "))
		return nil, "", false
	}
	return rt, pos[1], true
}

// hookContext is the context pack for a session-start hook: "" outside a
// workspace.
func hookContext(ctx context.Context, env *Env, in runtranscript.HookInput, warn func(string, ...any)) string {
	ws, ok := hookWorkspace(env, in.Cwd, "the agent starts without memctl's context", warn)
	if !ok {
		return ""
	}
	opts := env.primeOptions(ws)
	opts.MaxChars = hooks.MaxContext
	pack := prime.Build(ctx, ws, opts)
	if n := len(pack.Problems); n > 0 {
		p := pack.Problems[0]
		warn("the context pack leaves out what it could not read (%d parts; first %s: %s); memctl prime says more", n, p.Part, p.Detail())
	}
	return hooks.CutContext(pack.Text(), hooks.MaxContext)
}

// oneLineWriter passes on the first line written to w and drops the rest: a
// hook says at most one thing on stderr.
// Safe for concurrent use: the hook's work warns from its own goroutine.
type oneLineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (f *oneLineWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return len(p), nil
	}
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		f.done = true
		_, err := f.w.Write(p[:i+1])
		return len(p), err
	}
	return f.w.Write(p)
}
