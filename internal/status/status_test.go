package status

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHooks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, body string
		state            string // of the runtime whose file it is; the others are not installed
		problem          bool
	}{
		{"what hooks install writes is installed", ".cursor/hooks.json",
			`{"version":1,"hooks":{"sessionStart":[{"command":"memctl hook cursor session-start"}],"preCompact":[{"command":"memctl hook cursor pre-compact"}],"sessionEnd":[{"command":"memctl hook cursor session-end"}]}}`,
			"installed", false},
		{"another memctl hook is outdated", ".claude/settings.json",
			`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"memctl hook claude session-start"}]}]}}`, "outdated", false},
		{"memctl by its path counts", ".codex/hooks.json", `{"hooks":{"PreCompact":[{"hooks":[{"command":"/opt/bin/memctl flush"}]}]}}`, "outdated", false},
		{"memctl outside a command does not count", ".gemini/settings.json", `{"description":"memctl","hooks":{"SessionStart":[{"hooks":[{"command":"echo memctl"}]}]}}`, "not_installed", false},
		{"a file that is not JSON is a problem", ".cursor/hooks.json", `{"hooks":`, "unknown", true},
		{"hooks that are not an object are a problem", ".codex/hooks.json", `{"hooks":[]}`, "unknown", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, map[string]string{tc.file: tc.body})
			hooks, problems := Hooks(root)
			if len(hooks) != 5 {
				t.Fatalf("got %d runtimes, want 5", len(hooks))
			}
			for _, h := range hooks {
				want := "not_installed"
				if h.File == tc.file {
					want = tc.state
				}
				if h.State != want || h.Installed != (want == "installed" || want == "outdated") {
					t.Errorf("%s: state %q (installed %v), want %q", h.Runtime, h.State, h.Installed, want)
				}
			}
			if got := len(problems) == 1 && problems[0].Where == tc.file; got != tc.problem {
				t.Errorf("problems = %+v, want one for %s: %v", problems, tc.file, tc.problem)
			}
		})
	}
}

func TestGatherCountsAndKeepsGoingPastBrokenParts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	write(t, root, map[string]string{
		".ledger/facts/pitfalls.md":  "# Pitfalls\n\n- one\n-\n",
		".ledger/proposals/p-2.json": `{"schema_version":1,"id":"p-2","action":"add","category":"pitfalls","content":"b","reason":"r","status":"pending","created_at":"2026-11-20T10:00:00Z"}`,
		".ledger/proposals/p-1.json": `{"schema_version":1,"id":"p-1","action":"add","category":"pitfalls","content":"a","reason":"r","status":"pending","created_at":"2026-11-10T10:00:00Z"}`,
		".ledger/proposals/p-0.json": `{"schema_version":1,"id":"p-0","action":"add","category":"pitfalls","content":"c","reason":"r","status":"rejected","created_at":"2026-11-01T10:00:00Z"}`,
		".beads/issues.jsonl":        "{\"id\":\"a-1\",\"title\":\"t\"}\n{\"id\":\"a-2\"}\n",
	})
	ws := &config.Workspace{Root: root, Config: config.Default("a")}
	store := runs.Store{Dir: filepath.Join(root, ".ledger", "runs"), Rel: ".ledger/runs"}
	s := Gather(context.Background(), ws, Options{TasksCache: filepath.Join(root, "tasks.cache"), Runs: store, IndexDir: filepath.Join(root, "index"), Now: now})

	if s.Facts.Facts != 1 || s.Facts.Lines != 4 || s.Facts.MaxLines != config.DefaultMaxLines {
		t.Errorf("facts = %+v, want 1 fact in 4 lines against the default budget", s.Facts)
	}
	if s.Proposals.Pending != 2 || !s.Proposals.Oldest.Equal(time.Date(2026, 11, 10, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("proposals = %+v, want 2 pending, the oldest pending from 2026-11-10", s.Proposals)
	}
	if s.Tasks.Total != 0 {
		t.Errorf("tasks = %+v, want none counted from a file with a bad line", s.Tasks)
	}
	if !s.Runs.Since.Equal(now.Add(-RunsWindow)) || s.Runs.Count != 0 {
		t.Errorf("runs = %+v, want none since a week before now", s.Runs)
	}
	if s.Index.State != IndexAbsent {
		t.Errorf("index %+v, want absent", s.Index)
	}
	want := map[string]string{"facts": ".ledger/facts/pitfalls.md:4", "tasks": ".beads/issues.jsonl:2"}
	if len(s.Problems) != len(want) {
		t.Fatalf("problems = %+v, want %v", s.Problems, want)
	}
	for _, p := range s.Problems {
		if want[p.Part] != p.Where {
			t.Errorf("problem %+v, want it at %s", p, want[p.Part])
		}
	}
}

func TestGatherLayersOff(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, map[string]string{".ledger/facts/pitfalls.md": "-\n", ".beads/issues.jsonl": "not json\n"})
	cfg := config.Default("a")
	cfg.Facts.Enabled, cfg.Tasks.Enabled, cfg.Runs.Enabled, cfg.Index.Enabled = false, false, false, false
	s := Gather(context.Background(), &config.Workspace{Root: root, Config: cfg}, Options{Runs: runs.Store{Dir: filepath.Join(root, "none")}, Now: time.Unix(0, 0)})
	if s.Facts.Enabled || s.Proposals.Enabled || s.Tasks.Enabled || s.Runs.Enabled || s.Index.Enabled {
		t.Errorf("status = %+v, want every layer off", s)
	}
	if len(s.Problems) != 0 {
		t.Errorf("problems = %+v, want none: a layer that is off is not read", s.Problems)
	}
}
