package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/app/apptest"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

var now = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// workspace makes a git repository with memctl's layout and the given
// config.toml, and returns its root.
func workspace(t *testing.T, configTOML string) string { return apptest.Workspace(t, configTOML) }

type recorder struct{ notices, warnings []string }

func (r *recorder) options(env map[string]string) Options {
	return Options{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return now },
		Notice: func(m string) { r.notices = append(r.notices, m) }, Warn: func(m string) { r.warnings = append(r.warnings, m) }}
}

func TestPrimeOptions(t *testing.T) {
	root := workspace(t, "")
	var r recorder
	s, err := Open(filepath.Join(root, ".ledger"), r.options(map[string]string{"MEMCTL_ACTOR": "agent-7", "XDG_CONFIG_HOME": "/xdg"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := s.PrimeOptions()
	gitDir := filepath.Join(root, ".git")
	for _, c := range []struct{ name, got, want string }{
		{"actor", o.Actor, "agent-7"},
		{"branch", o.Branch, "master"},
		{"personal preferences", o.PersonalPrefs, filepath.Join("/xdg", "memctl", "preferences.md")},
		{"tasks cache", o.TasksCache, filepath.Join(gitDir, "memctl", "tasks.cache")},
		{"runs", o.Runs.Dir, filepath.Join(root, ".ledger", "runs")},
		{"runs cache", o.Runs.Cache, filepath.Join(gitDir, "memctl", "runs.cache")},
		{"pins", o.PinsDir, filepath.Join(gitDir, "memctl", "pins")},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if !o.Now.Equal(now) || o.BudgetTokens != 0 || o.Files != nil {
		t.Errorf("now %v, budget %d, files %v: want the session's clock and the front-end's choices left", o.Now, o.BudgetTokens, o.Files)
	}
}

func TestLockIsHeldUntilClose(t *testing.T) {
	root := workspace(t, "")
	var r recorder
	s, err := Open(root, r.options(map[string]string{"MEMCTL_LOCK_TIMEOUT": "0s"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Lock(ctx); err != nil {
		t.Errorf("a second Lock while held: %v", err)
	}
	// Another session (another process, as far as the lock goes) waits in vain.
	other := New(s.Workspace(), r.options(map[string]string{"MEMCTL_LOCK_TIMEOUT": "0s"}))
	err = other.Lock(ctx)
	if !errors.Is(err, fsx.ErrLocked) || !strings.Contains(Hint(err), "another memctl command is writing") {
		t.Fatalf("Lock while another session holds it = %v (hint %q), want ErrLocked with its hint", err, Hint(err))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := other.Lock(ctx); err != nil {
		t.Errorf("Lock after the holder's Close: %v", err)
	}
	other.Close()

	bad := New(s.Workspace(), r.options(map[string]string{"MEMCTL_LOCK_TIMEOUT": "soon"}))
	var usage *UsageError
	if err := bad.Lock(ctx); !errors.As(err, &usage) {
		t.Errorf("MEMCTL_LOCK_TIMEOUT=soon: %v, want a *UsageError", err)
	}
}

func TestDisabledLayer(t *testing.T) {
	root := workspace(t, "[tasks]\nenabled = false\n[runs]\nenabled = false\n")
	var r recorder
	s, err := Open(root, r.options(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var off *LayerOffError
	if _, err := s.Tasks(ctx, true); !errors.As(err, &off) || off.Layer != "tasks" {
		t.Errorf("Tasks(write) with tasks off = %v, want a *LayerOffError", err)
	}
	if h := Hint(&LayerOffError{Layer: "tasks"}); h != "set [tasks] enabled = true in .ledger/config.toml to keep tasks in this repository" {
		t.Errorf("hint = %q", h)
	}
	ts, err := s.Tasks(ctx, false)
	if err != nil || len(ts.Store.Issues()) != 0 {
		t.Errorf("Tasks(read) with tasks off = %v, %v; want an empty graph", ts, err)
	}
	rs, err := s.Runs(ctx, false)
	if err != nil || !rs.Off {
		t.Errorf("Runs(read) with runs off = %+v, %v", rs, err)
	}
	want := []string{"the tasks layer is disabled ([tasks] enabled = false in .ledger/config.toml)",
		"the runs layer is disabled ([runs] enabled = false in .ledger/config.toml)"}
	if strings.Join(r.notices, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices = %q, want %q", r.notices, want)
	}
}

func TestOpenWarnsAboutTheConfig(t *testing.T) {
	root := workspace(t, "[tasks]\nprefix = \"tk\"\nnosuch = 1\n")
	var r recorder
	s, err := Open(root, r.options(nil))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "nosuch") {
		t.Errorf("warnings = %q, want the unknown key", r.warnings)
	}
	if _, err := Open(t.TempDir(), r.options(nil)); !errors.Is(err, gitx.ErrNotRepo) || Hint(err) == "" {
		t.Errorf("Open outside a repository = %v, want ErrNotRepo with a hint", err)
	}
}

func TestLockWait(t *testing.T) {
	cfg := config.Default("x")
	cfg.Lock.Wait = 90 * time.Second
	for _, c := range []struct {
		name string
		env  string
		cfg  *config.Config
		want time.Duration
	}{
		{"the config's timeout", "", &cfg, 90 * time.Second},
		{"MEMCTL_LOCK_TIMEOUT wins over the config", "250ms", &cfg, 250 * time.Millisecond},
		{"0s gives up at once", "0s", &cfg, 0},
		{"no config: the default", "", nil, DefaultLockWait},
	} {
		got, err := LockWait(func(k string) string {
			if k == "MEMCTL_LOCK_TIMEOUT" {
				return c.env
			}
			return ""
		}, c.cfg)
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, v := range []string{"soon", "-1s", "10"} {
		_, err := LockWait(func(string) string { return v }, &cfg)
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "MEMCTL_LOCK_TIMEOUT=") {
			t.Errorf("MEMCTL_LOCK_TIMEOUT=%s: %v, want a usage error naming it", v, err)
		}
	}
}
