package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	git := func(args ...string) (string, error) { return gitx.Git(ctx, ws.Root, args...) }
	out := syncJSON{SchemaVersion: schemaVersion, Files: []string{}, TasksChanged: []string{}}
	paths := []string{config.LedgerDir, ".beads"}
	if _, err := git(append([]string{"add", "-A", "--"}, paths...)...); err != nil {
		return withHint(err, "is git installed and is this a working tree?")
	}
	changed, err := git(append([]string{"diff", "--cached", "--name-only", "--"}, paths...)...)
	if err != nil {
		return err
	}
	if files := strings.Fields(changed); len(files) > 0 {
		msg := fmt.Sprintf("memctl: sync %s\n\n%s\n", plural(len(files), "file"), strings.Join(files, "\n"))
		// "--" with paths commits only these paths, whatever else is staged.
		if _, err := git(append([]string{"commit", "--no-verify", "-q", "-m", msg, "--"}, paths...)...); err != nil {
			return withHint(err, "set your git identity (git config user.name / user.email) and run memctl sync again")
		}
		sha, _ := git("rev-parse", "--short", "HEAD")
		out.Committed, out.Commit, out.Files = true, strings.TrimSpace(sha), files
		env.notef("committed %s as %s", plural(len(files), "file"), out.Commit)
	}
	if untracked, _ := git("ls-files", "--others", "--exclude-standard", "--", config.AttrsFile, config.AgentsFile, config.ClaudeFile); strings.TrimSpace(untracked) != "" {
		env.notef("not committed (sync commits only .ledger/ and .beads/): %s; commit them so that every clone uses the merge driver and the agent instructions",
			strings.Join(strings.Fields(untracked), ", "))
	}
	if _, err := git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err != nil {
		remotes, _ := git("remote")
		switch {
		case !opts.push:
			env.notef("no upstream branch; nothing to pull (git branch --set-upstream-to to set one)")
		case len(strings.Fields(remotes)) == 0:
			env.notef("no remote; nothing pulled or pushed (git remote add origin <url>, then memctl sync --push)")
		default:
			remote := strings.Fields(remotes)[0]
			out.PushedCommits = countCommits(git, "HEAD", "--not", "--remotes="+remote)
			if _, err := git("push", "-q", "-u", remote, "HEAD"); err != nil {
				return withHint(err, "push by hand once: git push -u "+remote+" HEAD")
			}
			out.Pushed = true
			env.notef("pushed %s and set the upstream to %s", plural(out.PushedCommits, "commit"), remote)
		}
	} else {
		if missing, err := gitx.DriverMissing(ctx, ws.Root); err == nil && missing {
			env.warnf("%s; until then git merges %s as text", check.DriverMissingMessage, config.IssuesFile)
		}
		before, _ := git("rev-parse", "-q", "--verify", "HEAD")
		before = strings.TrimSpace(before)
		if _, err := git("pull", "--no-rebase", "--no-edit", "-q"); err != nil {
			return syncConflict(ctx, ws, err)
		}
		out.Pulled = true
		if before != "" {
			out.PulledCommits = countCommits(git, before+"..@{upstream}")
			out.TasksChanged = pulledTasks(ws, before)
		}
		if opts.push {
			out.PushedCommits = countCommits(git, "@{upstream}..HEAD")
			if _, err := git("push", "-q"); err != nil {
				return withHint(err, "pull again (memctl sync) if the remote moved, then push")
			}
			out.Pushed = true
		}
		env.notef("%s", syncSummary(out))
	}
	if opts.json {
		return writeJSON(env.Out, out)
	}
	return nil
}

// syncConflict explains a failed pull: the conflicted paths and what to do.
func syncConflict(ctx context.Context, ws *config.Workspace, pullErr error) error {
	files, _ := gitx.Git(ctx, ws.Root, "diff", "--name-only", "--diff-filter=U")
	if paths := strings.Fields(files); len(paths) > 0 {
		return withHint(fmt.Errorf("pull stopped with conflicts in %s", strings.Join(paths, ", ")), conflictHint(paths))
	}
	var ge *gitx.GitError
	if errors.As(pullErr, &ge) {
		return withHint(pullErr, "git refused the pull (see above); your local changes are untouched")
	}
	return pullErr
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

// countCommits counts the commits git rev-list selects with args; 0 when
// git cannot tell.
func countCommits(git func(...string) (string, error), args ...string) int {
	n, err := git(append([]string{"rev-list", "--count"}, args...)...)
	if err != nil {
		return 0
	}
	c, _ := strconv.Atoi(strings.TrimSpace(n))
	return c
}

// pulledTasks are the ids of the issues that differ in .beads/issues.jsonl
// between commit before and HEAD after the pull.
func pulledTasks(ws *config.Workspace, before string) []string {
	after := ws.Repo.Head()
	if after == "" || after == before {
		return []string{}
	}
	was, err1 := gitx.FileAt(ws.Root, before, config.IssuesFile)
	now, err2 := gitx.FileAt(ws.Root, after, config.IssuesFile)
	if err1 != nil || err2 != nil {
		return []string{}
	}
	ids, err := tasks.ChangedIDs(was, now)
	if err != nil {
		return []string{}
	}
	return nonNil(ids)
}

// syncSummary is the line that tells a person what a sync with an
// upstream did: "pulled 3 commits (2 tasks changed), pushed 1 commit".
func syncSummary(out syncJSON) string {
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
