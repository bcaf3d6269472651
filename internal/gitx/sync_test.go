package gitx

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

// syncRequest is memctl's: its two directories, two setup files.
var syncRequest = SyncRequest{Paths: []string{".ledger", ".beads"}, Setup: []string{".gitattributes", "AGENTS.md"}}

// clone clones remote into a new directory named name and returns its Repo.
func clone(t *testing.T, remote, name string) *Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	gitxtest.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	r, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// syncOK runs r.Sync and fails the test on an error.
func syncOK(t *testing.T, r *Repo, push bool) *SyncResult {
	t.Helper()
	req := syncRequest
	req.Push = push
	res, err := r.Sync(context.Background(), req)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return res
}

func head(t *testing.T, dir string) string {
	t.Helper()
	return strings.TrimSpace(gitxtest.Git(t, dir, "rev-parse", "HEAD"))
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gitxtest.Isolate(t)
}

func TestSyncCommitsOnlyItsPaths(t *testing.T) {
	needGit(t)
	r := clone(t, gitxtest.Shared(t, map[string]string{".ledger/facts/a.md": "- one\n", "AGENTS.md": "agents\n"}), "one")
	gitxtest.Git(t, r.Root, "branch", "--unset-upstream") // the pull is another test's
	gitxtest.Write(t, r.Root, ".ledger/facts/a.md", "- one\n- two\n")
	gitxtest.Write(t, r.Root, ".beads/issues.jsonl", "{}\n")
	gitxtest.Write(t, r.Root, "staged.txt", "staged\n")
	gitxtest.Git(t, r.Root, "add", "staged.txt")
	gitxtest.Write(t, r.Root, "notes.txt", "wip\n")
	gitxtest.Write(t, r.Root, ".gitattributes", ".beads/issues.jsonl merge=memctl\n")

	res := syncOK(t, r, false)
	if res.Commit != head(t, r.Root) {
		t.Errorf("Commit = %q, want HEAD %s", res.Commit, head(t, r.Root))
	}
	if short := strings.TrimSpace(gitxtest.Git(t, r.Root, "rev-parse", "--short", "HEAD")); res.ShortCommit != short {
		t.Errorf("ShortCommit = %q, want %q", res.ShortCommit, short)
	}
	wantFiles := []string{".beads/issues.jsonl", ".ledger/facts/a.md"}
	if !reflect.DeepEqual(res.Files, wantFiles) {
		t.Errorf("Files = %q, want %q", res.Files, wantFiles)
	}
	if got, want := gitxtest.Git(t, r.Root, "log", "-1", "--format=%B"), "memctl: sync 2 files\n\n.beads/issues.jsonl\n.ledger/facts/a.md\n\n"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if got, want := gitxtest.Git(t, r.Root, "show", "--name-only", "--format=", "HEAD"), ".beads/issues.jsonl\n.ledger/facts/a.md\n"; got != want {
		t.Errorf("files of HEAD = %q, want %q", got, want)
	}
	if got, want := gitxtest.Git(t, r.Root, "status", "--porcelain"), "A  staged.txt\n?? .gitattributes\n?? notes.txt\n"; got != want {
		t.Errorf("status = %q, want %q: what is not under the paths stays as it was", got, want)
	}
	if want := []string{".gitattributes"}; !reflect.DeepEqual(res.Untracked, want) {
		t.Errorf("Untracked = %q, want %q (AGENTS.md is committed)", res.Untracked, want)
	}
	if res.Skipped != NoUpstream || res.Pulled || res.Pushed || res.Before != "" || res.After != "" {
		t.Errorf("Skipped, Pulled, Pushed, Before, After = %v, %v, %v, %q, %q; want NoUpstream and nothing pulled or pushed",
			res.Skipped, res.Pulled, res.Pushed, res.Before, res.After)
	}

	again := syncOK(t, r, false)
	if again.Commit != "" || again.ShortCommit != "" || again.Files == nil || len(again.Files) != 0 {
		t.Errorf("nothing changed: Commit, ShortCommit, Files = %q, %q, %#v; want no commit and an empty list", again.Commit, again.ShortCommit, again.Files)
	}
}

func TestSyncWithoutPathsCommitsNothing(t *testing.T) {
	needGit(t)
	r := clone(t, gitxtest.Shared(t, map[string]string{"README": "r\n"}), "one")
	gitxtest.Write(t, r.Root, "other.txt", "x\n")
	before := head(t, r.Root)
	if _, err := r.Sync(context.Background(), SyncRequest{Push: true}); err == nil {
		t.Error("Sync without paths: no error")
	}
	if head(t, r.Root) != before {
		t.Error("Sync without paths made a commit")
	}
}

func TestSyncNoRemote(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	gitxtest.Git(t, root, "init", "-q", "-b", "main")
	gitxtest.Write(t, root, ".ledger/facts/a.md", "- one\n")
	gitxtest.Write(t, root, ".beads/issues.jsonl", "")
	r, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	res := syncOK(t, r, true)
	if res.Commit == "" || res.Commit != head(t, root) {
		t.Errorf("Commit = %q, want the first commit %s", res.Commit, head(t, root))
	}
	if res.Skipped != NoRemote || res.Pushed || res.SetUpstream != "" || res.PushedCommits != 0 {
		t.Errorf("Skipped, Pushed, SetUpstream, PushedCommits = %v, %v, %q, %d; want NoRemote and nothing pushed",
			res.Skipped, res.Pushed, res.SetUpstream, res.PushedCommits)
	}
	// Without --push, no remote is no upstream: nothing to pull.
	if res := syncOK(t, r, false); res.Skipped != NoUpstream {
		t.Errorf("without push: Skipped = %v, want NoUpstream", res.Skipped)
	}
}

func TestSyncPushSetsTheUpstream(t *testing.T) {
	needGit(t)
	remote := gitxtest.Shared(t, map[string]string{"README": "r\n", ".beads/issues.jsonl": ""})
	r := clone(t, remote, "one")
	gitxtest.Git(t, r.Root, "branch", "--unset-upstream")
	gitxtest.Write(t, r.Root, ".ledger/facts/a.md", "- one\n")
	res := syncOK(t, r, true)
	if !res.Pushed || res.SetUpstream != "origin" || res.PushedCommits != 1 || res.Skipped != NoUpstream || res.Pulled {
		t.Errorf("Pushed, SetUpstream, PushedCommits, Skipped, Pulled = %v, %q, %d, %v, %v; want 1 commit pushed to origin, set as upstream, no pull",
			res.Pushed, res.SetUpstream, res.PushedCommits, res.Skipped, res.Pulled)
	}
	if got := strings.TrimSpace(gitxtest.Git(t, r.Root, "rev-parse", "--abbrev-ref", "@{upstream}")); got != "origin/main" {
		t.Errorf("upstream = %q, want origin/main", got)
	}
	if got := strings.TrimSpace(gitxtest.Git(t, remote, "rev-parse", "main")); got != res.Commit {
		t.Errorf("remote main = %s, want the sync's commit %s", got, res.Commit)
	}
}

func TestSyncPullsAndPushesWithAnUpstream(t *testing.T) {
	needGit(t)
	remote := gitxtest.Shared(t, map[string]string{".ledger/facts/a.md": "- one\n", ".beads/issues.jsonl": ""})
	one, two := clone(t, remote, "one"), clone(t, remote, "two")
	gitxtest.Write(t, two.Root, ".ledger/facts/b.md", "- from two\n")
	if res := syncOK(t, two, true); !res.Pushed || res.PushedCommits != 1 || !res.Pulled || res.PulledCommits != 0 {
		t.Fatalf("two: Pushed, PushedCommits, Pulled, PulledCommits = %v, %d, %v, %d; want 1 pushed, nothing pulled",
			res.Pushed, res.PushedCommits, res.Pulled, res.PulledCommits)
	}

	gitxtest.Write(t, one.Root, ".ledger/facts/c.md", "- from one\n")
	res := syncOK(t, one, true)
	if res.Skipped != PullNotSkipped || !res.Pulled || res.PulledCommits != 1 {
		t.Errorf("Skipped, Pulled, PulledCommits = %v, %v, %d; want a pull of two's commit", res.Skipped, res.Pulled, res.PulledCommits)
	}
	if res.Before != res.Commit || res.After != head(t, one.Root) || res.Before == res.After {
		t.Errorf("Before, After = %s, %s; want one's commit %s and the merge %s", res.Before, res.After, res.Commit, head(t, one.Root))
	}
	// Its own commit and the merge.
	if !res.Pushed || res.PushedCommits != 2 {
		t.Errorf("Pushed, PushedCommits = %v, %d; want 2 commits pushed", res.Pushed, res.PushedCommits)
	}
	if got := strings.TrimSpace(gitxtest.Git(t, remote, "rev-parse", "main")); got != res.After {
		t.Errorf("remote main = %s, want %s", got, res.After)
	}
	if res.DriverMissing {
		t.Error("DriverMissing without a .gitattributes that names the driver")
	}
}

func TestSyncConflictNamesTheFiles(t *testing.T) {
	needGit(t)
	remote := gitxtest.Shared(t, map[string]string{".ledger/facts/a.md": "- one\n", ".beads/issues.jsonl": "{}\n"})
	one, two := clone(t, remote, "one"), clone(t, remote, "two")
	gitxtest.Write(t, two.Root, ".ledger/facts/a.md", "- two\n")
	gitxtest.Write(t, two.Root, ".beads/issues.jsonl", "{\"two\":1}\n")
	syncOK(t, two, true)

	gitxtest.Write(t, one.Root, ".ledger/facts/a.md", "- uno\n")
	gitxtest.Write(t, one.Root, ".beads/issues.jsonl", "{\"one\":1}\n")
	res, err := one.Sync(context.Background(), SyncRequest{Paths: syncRequest.Paths, Push: true})
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("err = %v (%T), want a *ConflictError", err, err)
	}
	if want := []string{".beads/issues.jsonl", ".ledger/facts/a.md"}; !reflect.DeepEqual(conflict.Paths, want) {
		t.Errorf("Paths = %q, want %q", conflict.Paths, want)
	}
	if want := "pull stopped with conflicts in .beads/issues.jsonl, .ledger/facts/a.md"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	var ge *GitError
	if !errors.As(err, &ge) || ge.Args[0] != "pull" {
		t.Errorf("the conflict does not wrap the pull's *GitError: %v", err)
	}
	// What was done before the pull is in the result.
	if res == nil || res.Commit == "" || res.Commit != head(t, one.Root) || res.Pulled || res.Pushed {
		t.Errorf("result = %+v; want one's commit, no pull, no push", res)
	}
}

func TestSyncErrorNamesTheStep(t *testing.T) {
	needGit(t)
	t.Run("commit without an identity", func(t *testing.T) {
		root := t.TempDir()
		gitxtest.Git(t, root, "init", "-q")
		gitxtest.Write(t, root, ".ledger/facts/a.md", "- one\n")
		gitxtest.Write(t, root, ".beads/issues.jsonl", "")
		r, err := Find(root)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("GIT_COMMITTER_NAME", "")
		t.Setenv("GIT_AUTHOR_NAME", "")
		res, err := r.Sync(context.Background(), syncRequest)
		var se *SyncError
		if !errors.As(err, &se) || se.Step != StepCommit {
			t.Fatalf("err = %v, want a *SyncError of StepCommit", err)
		}
		if res == nil || res.Commit != "" {
			t.Errorf("result = %+v, want one with no commit", res)
		}
	})
	t.Run("first push refused", func(t *testing.T) {
		remote := gitxtest.Shared(t, map[string]string{"README": "r\n", ".beads/issues.jsonl": ""})
		r := clone(t, remote, "one")
		gitxtest.Git(t, r.Root, "branch", "--unset-upstream")
		hook := filepath.Join(remote, "hooks", "pre-receive")
		if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		gitxtest.Write(t, r.Root, ".ledger/facts/a.md", "- one\n")
		res, err := r.Sync(context.Background(), SyncRequest{Paths: syncRequest.Paths, Push: true})
		var se *SyncError
		if !errors.As(err, &se) || se.Step != StepPushNew || se.Remote != "origin" {
			t.Fatalf("err = %v, want a *SyncError of StepPushNew naming origin", err)
		}
		if res.Pushed || res.SetUpstream != "" || res.Commit == "" {
			t.Errorf("Pushed, SetUpstream, Commit = %v, %q, %q; want the commit made and nothing pushed", res.Pushed, res.SetUpstream, res.Commit)
		}
	})
	t.Run("push to the upstream refused", func(t *testing.T) {
		remote := gitxtest.Shared(t, map[string]string{"README": "r\n", ".beads/issues.jsonl": ""})
		r := clone(t, remote, "one")
		hook := filepath.Join(remote, "hooks", "pre-receive")
		if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		gitxtest.Write(t, r.Root, ".ledger/facts/a.md", "- one\n")
		res, err := r.Sync(context.Background(), SyncRequest{Paths: syncRequest.Paths, Push: true})
		var se *SyncError
		if !errors.As(err, &se) || se.Step != StepPush {
			t.Fatalf("err = %v, want a *SyncError of StepPush", err)
		}
		if !res.Pulled || res.Pushed || res.PushedCommits != 1 {
			t.Errorf("Pulled, Pushed, PushedCommits = %v, %v, %d; want the pull done and 1 commit not pushed", res.Pulled, res.Pushed, res.PushedCommits)
		}
	})
}

// TestSyncNamesFilesAsTheyAre: a file name with a space or a character git
// quotes is one file in the result, as it is on disk.
func TestSyncNamesFilesAsTheyAre(t *testing.T) {
	needGit(t)
	r := clone(t, gitxtest.Shared(t, map[string]string{".ledger/facts/a.md": "- one\n"}), "one")
	gitxtest.Git(t, r.Root, "branch", "--unset-upstream")
	gitxtest.Write(t, r.Root, ".ledger/facts/team notes.md", "- two\n")
	gitxtest.Write(t, r.Root, ".ledger/facts/café.md", "- three\n")
	res := syncOK(t, r, false)
	want := []string{".ledger/facts/café.md", ".ledger/facts/team notes.md"}
	if !reflect.DeepEqual(res.Files, want) {
		t.Errorf("Files = %q, want %q", res.Files, want)
	}
}
