package tasks

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

func syncIssue(id, title string) string {
	return `{"id":"` + id + `","title":"` + title + `","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}` + "\n"
}

func cloneWorkspace(t *testing.T, remote, name string) *config.Workspace {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	gitxtest.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	repo, err := gitx.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &config.Workspace{Repo: repo, Root: repo.Root}
}

func TestSyncNamesTheTasksThePullChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gitxtest.Isolate(t)
	remote := gitxtest.Shared(t, map[string]string{
		config.IssuesFile: syncIssue("x-1", "one") + syncIssue("x-2", "two") + syncIssue("x-3", "three"),
		config.AttrsFile:  ".beads/issues.jsonl merge=memctl\n",
		config.ConfigFile: "",
	})
	one, two := cloneWorkspace(t, remote, "one"), cloneWorkspace(t, remote, "two")
	// The driver is not registered in these clones; git merges the file as
	// text, which is enough for changes on one side.
	gitxtest.Write(t, two.Root, config.IssuesFile, syncIssue("x-1", "one")+syncIssue("x-2", "TWO")+syncIssue("x-4", "four"))
	if _, err := Sync(context.Background(), two, SyncRequest{Push: true}); err != nil {
		t.Fatal(err)
	}

	gitxtest.Write(t, one.Root, config.FactsDir+"/a.md", "- a fact\n")
	gitxtest.Write(t, one.Root, config.AgentsFile, "agents\n")
	res, err := Sync(context.Background(), one, SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x-2", "x-3", "x-4"}; !reflect.DeepEqual(res.TasksChanged, want) {
		t.Errorf("TasksChanged = %q, want %q (changed, removed, added)", res.TasksChanged, want)
	}
	if want := []string{config.FactsDir + "/a.md"}; !reflect.DeepEqual(res.Files, want) {
		t.Errorf("Files = %q, want %q", res.Files, want)
	}
	if want := []string{config.AgentsFile}; !reflect.DeepEqual(res.Untracked, want) {
		t.Errorf("Untracked = %q, want %q", res.Untracked, want)
	}
	if !res.Pulled || res.PulledCommits != 1 || res.Pushed || !res.DriverMissing {
		t.Errorf("Pulled, PulledCommits, Pushed, DriverMissing = %v, %d, %v, %v; want 1 commit pulled, no push, the driver missing",
			res.Pulled, res.PulledCommits, res.Pushed, res.DriverMissing)
	}

	// Nothing new upstream: no tasks changed, an empty list.
	res, err = Sync(context.Background(), two, SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.TasksChanged == nil || len(res.TasksChanged) != 0 {
		t.Errorf("TasksChanged = %#v, want []", res.TasksChanged)
	}
}

func TestSyncReturnsTheConflictWithWhatItDid(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gitxtest.Isolate(t)
	remote := gitxtest.Shared(t, map[string]string{config.IssuesFile: syncIssue("x-1", "one"), config.ConfigFile: ""})
	one, two := cloneWorkspace(t, remote, "one"), cloneWorkspace(t, remote, "two")
	gitxtest.Write(t, two.Root, config.IssuesFile, syncIssue("x-1", "from two"))
	if _, err := Sync(context.Background(), two, SyncRequest{Push: true}); err != nil {
		t.Fatal(err)
	}
	gitxtest.Write(t, one.Root, config.IssuesFile, syncIssue("x-1", "from one"))
	res, err := Sync(context.Background(), one, SyncRequest{Push: true})
	var conflict *gitx.ConflictError
	if !errors.As(err, &conflict) || !reflect.DeepEqual(conflict.Paths, []string{config.IssuesFile}) {
		t.Fatalf("err = %v, want a *gitx.ConflictError on %s", err, config.IssuesFile)
	}
	if res == nil || res.Commit == "" || res.TasksChanged == nil {
		t.Errorf("result = %+v, want one's commit and an empty TasksChanged", res)
	}
}
