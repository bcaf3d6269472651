package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/status"
	"github.com/memctl/memctl/internal/tasks"
)

func TestWriteStatusOnATerminal(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := status.Status{
		Facts:     status.Facts{Enabled: true, Files: 5, Facts: 1, Lines: 900, MaxLines: 800, Bytes: 100, MaxTotalBytes: 1000},
		Proposals: status.Proposals{Enabled: true, Pending: 1, Oldest: now.Add(-90 * time.Minute)},
		Tasks:     status.Tasks{Enabled: true, Stats: tasks.Stats{Open: 2, Ready: 1, Blocked: 1, Pinned: 1}},
		Runs:      status.Runs{},
		Index:     status.Index{Enabled: true, State: status.IndexStale, Rebuild: "an update was interrupted"},
		Hooks:     []status.Hook{{Runtime: "claude", Installed: true, State: "installed"}},
		Problems:  []status.Problem{{Part: "facts", Where: "f.md:2", Message: "bad \x1b[31mline"}},
	}
	var out bytes.Buffer
	if err := writeStatus(&Env{Out: &out, StdoutTTY: true}, s, now); err != nil {
		t.Fatal(err)
	}
	want := `PART       STATUS
facts      1 fact in 5 files; 900/800 lines (112% OVER BUDGET), 100/1000 bytes (10%)
proposals  1 pending, oldest 1 hour old (2026-11-22T08:30:00Z)
tasks      1 ready; 2 open, 0 in progress, 1 blocked, 0 closed, 1 pinned
runs       off ([runs] enabled = false in .ledger/config.toml)
index      to be rebuilt: an update was interrupted ("memctl index" rebuilds it)
hooks      installed: claude
problem    facts: f.md:2: bad \x1b[31mline
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
