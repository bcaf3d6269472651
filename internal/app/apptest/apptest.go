// Package apptest makes workspaces for the tests of the packages above
// the composition root (app and the front-ends beside cli).
package apptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

// Workspace makes a git repository with memctl's layout (task prefix
// "tk") and, unless empty, the given config.toml, and returns its root.
// git's own configuration is isolated from the user's (gitxtest.Isolate).
func Workspace(t testing.TB, configTOML string) string {
	t.Helper()
	gitxtest.Isolate(t)
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	repo, err := gitx.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Init(repo, "tk"); err != nil {
		t.Fatal(err)
	}
	if configTOML != "" {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(config.ConfigFile)), []byte(configTOML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
