package gitx

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"
)

func TestFindFromSubdirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != root {
		t.Errorf("Root = %q, want %q", r.Root, root)
	}
	if want := filepath.Join(root, ".git"); r.GitDir != want || r.CommonDir != want {
		t.Errorf("GitDir, CommonDir = %q, %q, want both %q", r.GitDir, r.CommonDir, want)
	}
}

func TestFindOutsideRepository(t *testing.T) {
	t.Parallel()
	_, err := Find(t.TempDir())
	if !errors.Is(err, ErrNotRepo) {
		t.Fatalf("err = %v, want ErrNotRepo", err)
	}
}

func TestFindLinkedWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "main")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "main")
	run("-C", main, "commit", "-q", "--allow-empty", "-m", "first")
	run("-C", main, "worktree", "add", "-q", filepath.Join(dir, "wt"))
	sub := filepath.Join(dir, "wt", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "wt"); r.Root != want {
		t.Errorf("Root = %q, want %q", r.Root, want)
	}
	if want := filepath.Join(main, ".git", "worktrees", "wt"); r.GitDir != want {
		t.Errorf("GitDir = %q, want %q", r.GitDir, want)
	}
	if want := filepath.Join(main, ".git"); r.CommonDir != want {
		t.Errorf("CommonDir = %q, want %q", r.CommonDir, want)
	}
}
