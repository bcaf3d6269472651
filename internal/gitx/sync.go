package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SyncRequest says what Sync commits and whether it pushes.
type SyncRequest struct {
	// Paths are the pathspecs (relative to the root) whose changes Sync
	// stages and commits. Nothing else goes into the commit, whatever
	// else is staged or changed.
	Paths []string
	// Setup are files outside Paths that every clone needs committed
	// (.gitattributes, agent instructions): Sync does not commit them but
	// reports those that are untracked, in SyncResult.Untracked.
	Setup []string
	// Push pushes after pulling; on a branch with no upstream, it pushes
	// to the first remote and sets it as the upstream.
	Push bool
}

// PullSkip says why Sync did not pull.
type PullSkip int

const (
	// PullNotSkipped: the branch has an upstream and Sync pulled from it.
	PullNotSkipped PullSkip = iota
	// NoUpstream: the branch has no upstream branch, so there was nothing
	// to pull from. With Push and a remote, Sync pushed and set one.
	NoUpstream
	// NoRemote: Push was asked, but the repository has no remote, so
	// nothing was pulled or pushed.
	NoRemote
)

// SyncResult is what Sync did. Hashes are full unless named short.
type SyncResult struct {
	// Commit is the commit Sync made of the changes under the request's
	// paths, and ShortCommit its abbreviation as git prints it; both ""
	// when nothing had changed.
	Commit, ShortCommit string
	// Files are the files that commit holds, as git names them; empty
	// when there was no commit.
	Files []string
	// Untracked are the request's setup files that git neither tracks
	// nor ignores.
	Untracked []string
	// Skipped says why nothing was pulled; PullNotSkipped when the pull
	// ran.
	Skipped PullSkip
	// DriverMissing reports a clone whose .gitattributes routes a file to
	// memctl's merge driver while git's config has none (see
	// DriverMissing): the pull merged that file as text.
	DriverMissing bool
	// Pulled says that the pull ran and succeeded. PulledCommits counts
	// the upstream commits it brought in.
	Pulled        bool
	PulledCommits int
	// Before and After are HEAD before and after the pull; "" when there
	// was no pull or no commit before it.
	Before, After string
	// Pushed says that a push succeeded; PushedCommits counts the commits
	// it sent.
	Pushed        bool
	PushedCommits int
	// SetUpstream is the remote Sync pushed to and made the upstream of a
	// branch that had none; "" otherwise.
	SetUpstream string
}

// SyncStep names the git step of Sync that failed.
type SyncStep int

const (
	// StepStage is git add of the request's paths.
	StepStage SyncStep = iota + 1
	// StepCommit is the commit of the staged changes.
	StepCommit
	// StepPull is a pull that git refused without leaving conflicts.
	StepPull
	// StepPush is the push to the branch's upstream.
	StepPush
	// StepPushNew is the first push of a branch with no upstream, which
	// sets it; SyncError.Remote names the remote.
	StepPushNew
)

// SyncError is a git step of Sync that failed. Its message is git's.
type SyncError struct {
	Step   SyncStep
	Remote string // the remote of StepPushNew
	Err    error
}

func (e *SyncError) Error() string { return e.Err.Error() }
func (e *SyncError) Unwrap() error { return e.Err }

// ConflictError is a pull that stopped with files left conflicted: the
// working tree is mid-merge, and Paths must be resolved (or the merge
// aborted) before anything else.
type ConflictError struct {
	// Paths are the conflicted files, as git names them.
	Paths []string
	// Err is the failed pull.
	Err error
}

func (e *ConflictError) Error() string {
	return "pull stopped with conflicts in " + strings.Join(e.Paths, ", ")
}

func (e *ConflictError) Unwrap() error { return e.Err }

// Sync commits the changes under req.Paths (only those), pulls from the
// branch's upstream with git, so that merge drivers and the user's
// configuration apply, and with req.Push pushes. It never prompts.
//
// A failed step returns a *SyncError, a pull that stops on conflicts a
// *ConflictError; either way the result says what was done before, so a
// caller can report the commit that did happen. Without paths it does
// nothing and returns an error.
func (r *Repo) Sync(ctx context.Context, req SyncRequest) (*SyncResult, error) {
	if len(req.Paths) == 0 {
		// git add -A -- with no pathspec would stage the whole tree.
		return nil, errors.New("sync: no paths to commit")
	}
	git := func(args ...string) (string, error) { return Git(ctx, r.Root, args...) }
	res := &SyncResult{Files: []string{}, Untracked: []string{}}
	if err := r.commitPaths(git, req.Paths, res); err != nil {
		return res, err
	}
	if len(req.Setup) > 0 {
		untracked, _ := git(append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--"}, req.Setup...)...)
		if files := nulList(untracked); len(files) > 0 {
			res.Untracked = files
		}
	}
	if _, err := git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err != nil {
		res.Skipped = NoUpstream
		if !req.Push {
			return res, nil
		}
		return res, pushNew(git, res)
	}
	if missing, err := DriverMissing(ctx, r.Root); err == nil && missing {
		res.DriverMissing = true
	}
	before := r.Head()
	if _, err := git("pull", "--no-rebase", "--no-edit", "-q"); err != nil {
		return res, pullError(git, err)
	}
	res.Pulled = true
	if before != "" {
		res.Before, res.After = before, r.Head()
		res.PulledCommits = countCommits(git, before+"..@{upstream}")
	}
	if req.Push {
		res.PushedCommits = countCommits(git, "@{upstream}..HEAD")
		if _, err := git("push", "-q"); err != nil {
			return res, &SyncError{Step: StepPush, Err: err}
		}
		res.Pushed = true
	}
	return res, nil
}

// commitPaths stages paths and commits what changed under them, filling
// res's Commit, ShortCommit and Files.
func (r *Repo) commitPaths(git func(...string) (string, error), paths []string, res *SyncResult) error {
	// A path neither on disk nor in the index (a layer never created) is
	// nothing to commit; git add would refuse the pathspec.
	paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		if _, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(p))); err == nil {
			return false
		}
		tracked, err := git("ls-files", "-z", "--", p)
		return err == nil && tracked == ""
	})
	if len(paths) == 0 {
		return nil
	}
	if _, err := git(append([]string{"add", "-A", "--"}, paths...)...); err != nil {
		return &SyncError{Step: StepStage, Err: err}
	}
	changed, err := git(append([]string{"diff", "-z", "--cached", "--name-only", "--"}, paths...)...)
	if err != nil {
		return err
	}
	files := nulList(changed)
	if len(files) == 0 {
		return nil
	}
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	msg := fmt.Sprintf("memctl: sync %d %s\n\n%s\n", len(files), noun, strings.Join(files, "\n"))
	// "--" with paths commits only these paths, whatever else is staged.
	if _, err := git(append([]string{"commit", "--no-verify", "-q", "-m", msg, "--"}, paths...)...); err != nil {
		return &SyncError{Step: StepCommit, Err: err}
	}
	res.Commit, res.Files = r.Head(), files
	res.ShortCommit = res.Commit
	// Only git knows the abbreviation that is unique in this repository.
	if short, err := git("rev-parse", "--short", res.Commit); err == nil {
		res.ShortCommit = strings.TrimSpace(short)
	}
	return nil
}

// pushNew pushes a branch with no upstream to the first remote and sets
// it as the upstream; with no remote it records NoRemote.
func pushNew(git func(...string) (string, error), res *SyncResult) error {
	remotes, _ := git("remote")
	names := strings.Fields(remotes)
	if len(names) == 0 {
		res.Skipped = NoRemote
		return nil
	}
	remote := names[0]
	res.PushedCommits = countCommits(git, "HEAD", "--not", "--remotes="+remote)
	if _, err := git("push", "-q", "-u", remote, "HEAD"); err != nil {
		return &SyncError{Step: StepPushNew, Remote: remote, Err: err}
	}
	res.Pushed, res.SetUpstream = true, remote
	return nil
}

// pullError explains a failed pull: a *ConflictError naming the files it
// left conflicted, else a *SyncError of StepPull for a pull git refused.
func pullError(git func(...string) (string, error), pullErr error) error {
	files, _ := git("diff", "-z", "--name-only", "--diff-filter=U")
	if paths := nulList(files); len(paths) > 0 {
		return &ConflictError{Paths: paths, Err: pullErr}
	}
	var ge *GitError
	if errors.As(pullErr, &ge) {
		return &SyncError{Step: StepPull, Err: pullErr}
	}
	return pullErr
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

// nulList splits git's -z output: paths as they are, spaces, quotes and
// all (without -z git quotes unusual names and a space splits them).
func nulList(out string) []string {
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p = strings.TrimRight(p, "\n"); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}
