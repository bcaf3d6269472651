package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

func newRunCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "run",
		Short:   "Record what an agent run did (run record)",
		Example: "  memctl run record --task app-3f2 --status success --intent \"fix the flaky test\" --json",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newRunRecordCmd(env))
	return cmd
}

type runRecordOptions struct {
	runID, session, runtime, model, status string
	repo, branch, commit, started, ended   string
	digest                                 digestFlags
	tasks, files                           []string
	commands, tests, errs, artifacts       []string
	stdin, json                            bool
}

func newRunRecordCmd(env *Env) *cobra.Command {
	var opts runRecordOptions
	cmd := &cobra.Command{
		Use:   "record [-]",
		Short: "Write or merge a run record in .ledger/runs (idempotent by run id)",
		Long: `Record writes the record of an agent run to .ledger/runs/<yyyy-mm>/<run_id>.json,
from flags, from JSON on stdin in the file's format (with - or --stdin), or
both (the flags are merged over stdin). Recording a run id again merges into
its file: lists are unioned, later non-empty values win, started_at keeps
the earliest time and ended_at the latest. Without --run-id a new id is
made (r-<10 characters>). repo, branch and commit_sha come from git and
started_at and ended_at from the clock when not given.

--command takes EXIT:COMMAND (the exit code first, so the command may hold
any character: --command '1:go test ./...'); --test takes NAME=STATUS with
STATUS pass, fail or skip. Text that looks like a secret is refused (exit 1),
naming the field.`,
		Example: `  memctl run record --task app-3f2 --status failure --intent "fix the flaky test" \
      --command '1:go test ./...' --test TestParse=fail --error "parse.go:12: unexpected EOF" --json
  memctl run record --run-id r-abc --gotcha "the fixture needs TZ=UTC" --json
  memctl run record - < run.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if args[0] != "-" {
					return usagef(fmt.Errorf("unexpected argument %q: give the record as JSON on stdin with - or --stdin, or as flags", args[0]))
				}
				opts.stdin = true
			}
			return runRunRecord(cmd.Context(), env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.runID, "run-id", "", "the run `id` (default: a new one); recording an existing id merges")
	f.StringVar(&opts.session, "session", "", "the agent's session `id`")
	f.StringArrayVar(&opts.tasks, "task", nil, "a task `id` the run worked on; repeatable")
	f.StringVar(&opts.runtime, "runtime", "", "the agent runtime (claude-code, codex, gemini, …)")
	f.StringVar(&opts.model, "model", "", "the model")
	f.StringVar(&opts.status, "status", "", "success, failure, partial or unknown")
	opts.digest.bind(cmd, "run")
	f.StringArrayVar(&opts.files, "file", nil, "a `path` it changed; repeatable")
	f.StringArrayVar(&opts.commands, "command", nil, "a command it ran, `EXIT:COMMAND` (1:go test ./...); repeatable")
	f.StringArrayVar(&opts.tests, "test", nil, "a test it ran, `NAME=STATUS` (pass, fail, skip); repeatable")
	f.StringArrayVar(&opts.errs, "error", nil, "an error `text` it met (cut to 300 characters); repeatable")
	f.StringArrayVar(&opts.artifacts, "artifact", nil, "a `path or URL` of a log kept elsewhere; repeatable")
	f.StringVar(&opts.repo, "repo", "", "the repository (default: the origin remote as host/path)")
	f.StringVar(&opts.branch, "branch", "", "the branch (default: git's)")
	f.StringVar(&opts.commit, "commit", "", "the commit (default: HEAD)")
	f.StringVar(&opts.started, "started", "", "when the run started: a time, a date or a duration ago (default: now)")
	f.StringVar(&opts.ended, "ended", "", "when it ended, as --started (default: now)")
	f.BoolVar(&opts.stdin, "stdin", false, "read the record as JSON on stdin (the same as -)")
	f.BoolVar(&opts.json, "json", false, "print the stored record as JSON")
	return cmd
}

func runRunRecord(ctx context.Context, env *Env, opts runRecordOptions) error {
	rec, err := opts.record(env)
	if err != nil {
		return err
	}
	if opts.stdin {
		in, err := readRunInput(env)
		if err != nil {
			return err
		}
		rec = runs.Merge(in, rec)
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	e, err := env.session(ws).RecordRun(ctx, rec)
	if err != nil {
		return err
	}
	return writeRun(env, e, opts.json)
}

// record is the record the flags describe.
func (o runRecordOptions) record(env *Env) (*runs.Record, error) {
	r := &runs.Record{
		RunID: o.runID, SessionID: o.session, TaskIDs: o.tasks, Status: o.status,
		Agent: runs.Agent{Runtime: o.runtime, Model: o.model},
		Repo:  o.repo, Branch: o.branch, CommitSHA: o.commit,
		Digest:       o.digest.value(),
		FilesChanged: o.files, ArtifactRefs: o.artifacts,
	}
	if r.RunID != "" && !runs.ValidRunID(r.RunID) {
		return nil, usagef(fmt.Errorf("--run-id %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", r.RunID))
	}
	if r.Status != "" && !slices.Contains(runs.Statuses, r.Status) {
		return nil, usagef(fmt.Errorf("--status %q: use success, failure, partial or unknown", r.Status))
	}
	for _, c := range o.commands {
		code, cmd, ok := strings.Cut(c, ":")
		n, err := strconv.Atoi(strings.TrimSpace(code))
		if !ok || err != nil || strings.TrimSpace(cmd) == "" {
			return nil, usagef(fmt.Errorf("--command %q: want EXIT:COMMAND, the exit code first (--command '1:go test ./...')", c))
		}
		r.Commands = append(r.Commands, runs.Command{Cmd: strings.TrimSpace(cmd), ExitCode: n})
	}
	for _, t := range o.tests {
		i := strings.LastIndex(t, "=")
		if i <= 0 || !slices.Contains(runs.TestStatuses, t[i+1:]) {
			return nil, usagef(fmt.Errorf("--test %q: want NAME=STATUS with STATUS pass, fail or skip", t))
		}
		r.Tests = append(r.Tests, runs.Test{Name: t[:i], Status: t[i+1:]})
	}
	for _, e := range o.errs {
		r.Errors = append(r.Errors, runs.Error{Excerpt: e})
	}
	var err error
	for _, w := range []struct {
		flag string
		s    string
		t    *time.Time
	}{{"started", o.started, &r.StartedAt}, {"ended", o.ended, &r.EndedAt}} {
		if w.s != "" {
			if *w.t, err = parseWhen(w.flag, w.s, env.Now(), true); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// readRunInput reads a record in the file's format from stdin.
func readRunInput(env *Env) (*runs.Record, error) {
	if env.StdinTTY {
		return nil, usagef(errors.New("- and --stdin read the record as JSON on stdin, which is a terminal: pipe it in"))
	}
	data, err := io.ReadAll(env.In)
	if err != nil {
		return nil, fmt.Errorf("read the record from stdin: %w", err)
	}
	r, err := runs.DecodeInput(data, "stdin")
	if err != nil {
		return nil, withHint(usagef(err), "give the record in the format of .ledger/runs files: memctl help runs")
	}
	for _, k := range r.UnknownKeys() {
		if slices.Contains(runs.DigestKeys, k) {
			env.warnf("stdin: %q is a digest field: put it under \"digest\" (kept as an unknown key, which nothing reads)", k)
		} else {
			env.warnf("stdin: unknown key %q kept as it is (memctl does not read it)", k)
		}
	}
	return r, nil
}

// runContext is what git and the clock say about a run recorded now.
func runContext(env *Env, ws *config.Workspace, times bool) runs.Context {
	return env.session(ws).RunContext(times)
}

// runError maps run store errors to exit codes and hints (app.RunError).
func runError(err error) error { return app.RunError(err) }
