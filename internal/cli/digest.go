package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/runs"
)

type digestOptions struct {
	run, session, runtime string
	digest                digestFlags
	json                  bool
}

// digestFlags are the flags of a digest, the same in run record and
// digest.
type digestFlags struct {
	intent, result                    string
	changes, decisions, gotchas, next []string
	decisionsAlias, gotchasAlias      []string
}

// bind adds the digest's flags; subject names what is recorded ("run",
// "session").
func (d *digestFlags) bind(cmd *cobra.Command, subject string) {
	f := cmd.Flags()
	f.StringVar(&d.intent, "intent", "", "what the "+subject+" set out to do")
	f.StringVar(&d.result, "result", "", "what came of it")
	f.StringArrayVar(&d.changes, "change", nil, "a change it made; repeatable")
	f.StringArrayVar(&d.decisions, "decision", nil, "a decision it took; repeatable")
	f.StringArrayVar(&d.decisionsAlias, "decisions", nil, "the same as --decision")
	f.StringArrayVar(&d.gotchas, "gotcha", nil, "a gotcha it ran into; repeatable")
	f.StringArrayVar(&d.gotchasAlias, "gotchas", nil, "the same as --gotcha")
	f.StringArrayVar(&d.next, "next", nil, "a next step; repeatable")
}

// value is the digest the flags give.
func (d *digestFlags) value() runs.Digest {
	return runs.Digest{Intent: d.intent, Result: d.result, Changes: d.changes,
		Decisions: append(d.decisions, d.decisionsAlias...), Gotchas: append(d.gotchas, d.gotchasAlias...), NextSteps: d.next}
}

// defaultRuntime is the runtime a session id is taken to belong to when
// no record carries it yet and --runtime is not given.
const defaultRuntime = "claude-code"

func newDigestCmd(env *Env) *cobra.Command {
	var opts digestOptions
	cmd := &cobra.Command{
		Use:   "digest",
		Short: "Merge what this session learned into its run record (call it before you stop)",
		Long: `Digest merges a digest (intent, result, changes, decisions, gotchas, next
steps) into the run record of a session, which the next session reads. Name
the run with --run, or the session with --session (or MEMCTL_SESSION_ID): the
record that carries that session id is found whatever wrote it (a hook's
flush included); when none does, one is started under the id flush would
give it, r- and a hash of --runtime (default claude-code) and the session id.
Lists are unioned with what the record holds; an intent or result replaces it.
Text that looks like a secret is refused (exit 1), naming the field.`,
		Example: `  memctl digest --session "$SESSION_ID" --intent "make the importer resumable" \
      --decision "checkpoint every 1000 rows" --gotcha "the fixture DB needs TZ=UTC" \
      --next "resume from the last checkpoint on start" --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDigest(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.run, "run", "", "the run `id` to merge into")
	f.StringVar(&opts.session, "session", "", "the session `id` whose run to merge into (default: $MEMCTL_SESSION_ID)")
	f.StringVar(&opts.runtime, "runtime", "", "the runtime of a session with no record yet (default: claude-code)")
	opts.digest.bind(cmd, "session")
	f.BoolVar(&opts.json, "json", false, "print the stored record as JSON")
	return cmd
}

func runDigest(ctx context.Context, env *Env, opts digestOptions) error {
	if opts.session == "" && opts.run == "" {
		opts.session = env.Getenv("MEMCTL_SESSION_ID")
	}
	switch {
	case opts.run != "" && opts.session != "":
		return usagef(errors.New("give --run or --session, not both"))
	case opts.run == "" && opts.session == "":
		return usagef(errors.New("name the run with --run <id> or the session with --session <id> (or set MEMCTL_SESSION_ID)"))
	case opts.run != "" && !runs.ValidRunID(opts.run):
		return usagef(fmt.Errorf("--run %q is not a run id", opts.run))
	}
	d := opts.digest.value()
	if d.Intent == "" && d.Result == "" && len(d.Changes)+len(d.Decisions)+len(d.Gotchas)+len(d.NextSteps) == 0 {
		return usagef(errors.New("nothing to record: give at least one of --intent, --result, --change, --decision, --gotcha, --next"))
	}
	rs, err := env.openRuns(ctx, true)
	if err != nil {
		return err
	}
	rec := &runs.Record{RunID: opts.run, Digest: d}
	found := true
	if opts.session != "" {
		runtime := opts.runtime
		if runtime == "" {
			runtime = defaultRuntime
		}
		if rec.RunID, found, err = rs.store.SessionRun(runtime, opts.session); err != nil {
			return runError(err)
		}
		rec.SessionID = opts.session
		if !found {
			rec.Agent.Runtime = runtime
		}
	} else if _, err := rs.store.Find(opts.run); err != nil {
		// A run named by id is one that exists: a typo must not start a
		// record of its own (a session's first digest may, by --session).
		return runError(err)
	}
	if !found {
		rec.Fill(runContext(env, rs.ws, false))
	}
	e, _, err := rs.store.Put(rec, runs.PutOptions{Now: env.Now(), Gate: runs.Refuse, Secrets: rs.ws.Config.Secrets.Policy})
	if err != nil {
		return runError(err)
	}
	env.reportRedactions(e.Redactions)
	return writeRun(env, e, opts.json)
}
