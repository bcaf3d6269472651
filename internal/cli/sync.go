package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/check"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/tasks"
)

type syncOptions struct {
	push bool
	json bool
}

func newSyncCmd(env *Env) *cobra.Command {
	var opts syncOptions
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Commit memctl's files, pull (merging issues.jsonl by id) and optionally push",
		Long: `Sync makes git the sync in one command. It commits the changes under .ledger/
and .beads/ (and nothing else: other staged or unstaged changes are left as they
are), pulls from the upstream branch with git, so that memctl's merge driver
merges .beads/issues.jsonl record by record, and pushes with --push. On a
conflict it stops and names the files. It never prompts, so a session-end
hook can run it.`,
		Example: "  memctl sync\n  memctl sync --push --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runSync(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.push, "push", false, "push after pulling")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was done as JSON")
	return cmd
}

type syncJSON struct {
	SchemaVersion int      `json:"schema_version"`
	Committed     bool     `json:"committed"`
	Commit        string   `json:"commit"`
	Files         []string `json:"files"`
	Pulled        bool     `json:"pulled"`
	// PulledCommits counts the upstream commits the pull brought in.
	PulledCommits int `json:"pulled_commits"`
	// TasksChanged are the ids of the issues the pull added, changed or
	// removed in .beads/issues.jsonl.
	TasksChanged  []string `json:"tasks_changed"`
	Pushed        bool     `json:"pushed"`
	PushedCommits int      `json:"pushed_commits"`
}

func runSync(ctx context.Context, env *Env, opts syncOptions) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	res, err := tasks.Sync(ctx, ws, tasks.SyncRequest{Push: opts.push})
	// The notes of the steps that ran come first, even when a later one
	// failed: a commit that was made is reported.
	renderSyncNotes(env, res, err == nil)
	if err != nil {
		return syncError(err)
	}
	if opts.json {
		return writeJSON(env.Out, toSyncJSON(res))
	}
	return nil
}

// renderSyncNotes prints on stderr what a sync did, in the order it did
// it; the summary of the pull and push only when the sync succeeded.
func renderSyncNotes(env *Env, res *tasks.SyncResult, ok bool) {
	if res.Commit != "" {
		env.notef("committed %s as %s", plural(len(res.Files), "file"), res.ShortCommit)
	}
	if len(res.Untracked) > 0 {
		env.notef("not committed (sync commits only .ledger/ and .beads/): %s; commit them so that every clone uses the merge driver and the agent instructions",
			strings.Join(res.Untracked, ", "))
	}
	switch {
	case res.SetUpstream != "":
		env.notef("pushed %s and set the upstream to %s", plural(res.PushedCommits, "commit"), res.SetUpstream)
	case res.Skipped == gitx.NoRemote:
		env.notef("no remote; nothing pulled or pushed (git remote add origin <url>, then memctl sync --push)")
	case res.Skipped == gitx.NoUpstream:
		if ok {
			env.notef("no upstream branch; nothing to pull (git branch --set-upstream-to to set one)")
		}
	default:
		if res.DriverMissing {
			env.warnf("%s; until then git merges %s as text", check.DriverMissingMessage, config.IssuesFile)
		}
		if ok {
			env.notef("%s", syncSummary(res))
		}
	}
}

// toSyncJSON is sync --json's shape of res (docs/json.md).
func toSyncJSON(res *tasks.SyncResult) syncJSON {
	return syncJSON{
		SchemaVersion: schemaVersion,
		Committed:     res.Commit != "",
		Commit:        res.ShortCommit,
		Files:         nonNil(res.Files),
		Pulled:        res.Pulled,
		PulledCommits: res.PulledCommits,
		TasksChanged:  nonNil(res.TasksChanged),
		Pushed:        res.Pushed,
		PushedCommits: res.PushedCommits,
	}
}

// syncError adds to a failed sync what to do next: per conflicted file
// after a stopped pull, else per failed git step.
func syncError(err error) error {
	var conflict *gitx.ConflictError
	var step *gitx.SyncError
	switch {
	case errors.As(err, &conflict):
		return withHint(err, conflictHint(conflict.Paths))
	case !errors.As(err, &step):
		return err
	}
	switch step.Step {
	case gitx.StepStage:
		return withHint(err, "is git installed and is this a working tree?")
	case gitx.StepCommit:
		return withHint(err, "set your git identity (git config user.name / user.email) and run memctl sync again")
	case gitx.StepPull:
		return withHint(err, "git refused the pull (see above); your local changes are untouched")
	case gitx.StepPush:
		return withHint(err, "pull again (memctl sync) if the remote moved, then push")
	case gitx.StepPushNew:
		return withHint(err, "push by hand once: git push -u "+step.Remote+" HEAD")
	}
	return err
}

// conflictHint says what to do with each file a pull left conflicted, in
// the words of its kind: issues.jsonl is resolve's, a facts file holds
// facts, anything else is text.
func conflictHint(paths []string) string {
	steps := make([]string, 0, len(paths)+1)
	for _, p := range paths {
		switch {
		case p == config.IssuesFile:
			steps = append(steps, "run memctl resolve to merge "+p+" from the git index (records both sides changed stay between <<<<<<< and >>>>>>>)")
		case strings.HasPrefix(p, config.FactsDir+"/"):
			steps = append(steps, "edit "+p+": keep the facts of both sides between <<<<<<< and >>>>>>> and delete the marker lines")
		default:
			steps = append(steps, "edit "+p+": keep what each side meant between <<<<<<< and >>>>>>> and delete the marker lines")
		}
	}
	them := "it"
	if len(paths) > 1 {
		them = "them"
	}
	steps = append(steps, "git add "+them+" and git commit; or git merge --abort to undo the pull")
	return strings.Join(steps, "; ")
}

// syncSummary is the line that tells a person what a sync with an
// upstream did: "pulled 3 commits (2 tasks changed), pushed 1 commit".
func syncSummary(out *tasks.SyncResult) string {
	msg := "pulled nothing (up to date)"
	if out.PulledCommits > 0 {
		msg = fmt.Sprintf("pulled %s (%s changed)", plural(out.PulledCommits, "commit"), plural(len(out.TasksChanged), "task"))
	}
	if out.Pushed {
		if out.PushedCommits == 0 {
			return msg + ", nothing to push"
		}
		return msg + ", pushed " + plural(out.PushedCommits, "commit")
	}
	return msg
}
