package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/agents"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets/secretstest"
	"github.com/memctl/memctl/internal/tasks"
)

// A check that remembers clean lines finds on its next run what a full
// check finds: a secret or a control character added after a clean run,
// at its line; a line with a finding is never remembered as clean; a
// table written under other rules, or damaged, is not used.
func TestCleanLinesFindWhatAFullCheckFinds(t *testing.T) {
	t.Parallel()
	token := secretstest.Secrets()[0].Text
	var clean strings.Builder
	for i := range 40 {
		clean.WriteString(`{"id":"x-` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `","title":"plain ` + strings.Repeat("t", i) + `"}` + "\n")
	}
	ws := workspace(t, config.Default("t"), map[string]string{
		"AGENTS.md":           agents.Block(),
		".beads/issues.jsonl": clean.String(),
	})
	table := filepath.Join(t.TempDir(), "check.clean")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	run := func(opts Options) string {
		t.Helper()
		opts.Now = now
		r, err := Run(t.Context(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		return rules(r)
	}
	remembering := Options{CleanLines: table}
	if got := run(remembering); got != "" {
		t.Fatalf("clean file: %s", got)
	}
	if known := loadCleanLines(table); known == nil || known.keys != 40 {
		t.Fatalf("the clean run remembered %+v, want 40 lines", known)
	}
	// Lines 41 and 43 added with a secret and a control character, line
	// 42 clean: found at their lines, as a full check finds them.
	edited := clean.String() + `{"id":"y-1","title":"t","notes":"` + token + `"}` + "\n" +
		`{"id":"y-2","title":"fine"}` + "\n" + `{"id":"y-3","title":"a \u202e b"}` + "\n"
	if err := os.WriteFile(ws.Path(config.IssuesFile), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "secret .beads/issues.jsonl:41\ncontrol-character .beads/issues.jsonl:43"
	if got := run(remembering); got != want {
		t.Errorf("with remembered lines:\n%s\nwant\n%s", got, want)
	}
	if got := run(Options{}); got != want {
		t.Errorf("full check:\n%s\nwant\n%s", got, want)
	}
	// The lines with findings were not remembered: found again.
	if got := run(remembering); got != want {
		t.Errorf("second run with remembered lines:\n%s\nwant\n%s", got, want)
	}
	if known := loadCleanLines(table); known == nil || known.keys != 41 {
		t.Errorf("remembered %+v, want the 41 clean lines", known)
	}
	// A table that knows the secret's line (as another scanner's might)
	// is not used when its fingerprint is not this scanner's.
	keys := []uint64{}
	for _, l := range strings.Split(strings.TrimSuffix(edited, "\n"), "\n") {
		keys = append(keys, lineKey(l))
	}
	saveCleanLines(table, keys)
	if got := run(remembering); got != "" {
		// The table is this scanner's: its lines are trusted, which is
		// what makes the check fast. Now give it another fingerprint.
		t.Fatalf("a table of every line still scanned: %s", got)
	}
	data, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	data[8] ^= 0xff
	if err := os.WriteFile(table, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(remembering); got != want {
		t.Errorf("a table from other rules was used:\n%s\nwant\n%s", got, want)
	}
	for _, damaged := range [][]byte{nil, []byte("MCCL"), append([]byte(cleanMagic+"\x01\x00\x00\x00"), make([]byte, 60)...)} {
		if err := os.WriteFile(table, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := run(remembering); got != want {
			t.Errorf("a damaged table (%q) changed the findings:\n%s", damaged, got)
		}
	}
}

// The task graph's cache vouches for an unchanged issues.jsonl: the
// count is the one validation gives, and a changed file is validated.
func TestTasksCacheVouchesForTheFile(t *testing.T) {
	t.Parallel()
	body := `{"id":"x-1","title":"a","status":"open","priority":1,"issue_type":"task"}` + "\n\n" +
		`{"_type":"memory","key":"k","value":"v"}` + "\n" +
		`{"id":"x-2","title":"b","status":"open","priority":2,"issue_type":"task"}` + "\n"
	ws := workspace(t, config.Default("t"), map[string]string{"AGENTS.md": agents.Block(), ".beads/issues.jsonl": body})
	cache := filepath.Join(t.TempDir(), "tasks.cache")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(ws.Path(config.IssuesFile), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.LoadCached(ws.Path(config.IssuesFile), cache); err != nil {
		t.Fatal(err)
	}
	opts := Options{Now: time.Now(), TasksCache: cache}
	full, err := Run(t.Context(), ws, Options{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	vouched, err := Run(t.Context(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if full.Issues != 3 || vouched.Issues != full.Issues || rules(vouched) != "" {
		t.Fatalf("records: %d validated, %d vouched for (findings %q)", full.Issues, vouched.Issues, rules(vouched))
	}
	data, err := os.ReadFile(ws.Path(config.IssuesFile))
	if err != nil {
		t.Fatal(err)
	}
	stamp, err := fsx.StatStamp(ws.Path(config.IssuesFile))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := tasks.Vouched(data, stamp, cache); !ok || n != 3 {
		t.Fatalf("the cache of the unchanged file vouches %v for %d records, want true for 3", ok, n)
	}
	// A bad line written behind the cache's back, same size: validated.
	bad := strings.Replace(body, `"priority":2`, `"priority":9`, 1)
	if err := os.WriteFile(ws.Path(config.IssuesFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Run(t.Context(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(r); got != "issues-jsonl .beads/issues.jsonl:4" {
		t.Errorf("a changed file was not validated: %q", got)
	}
}

// A damaged table with no empty slot is looked up in bounded time.
func TestCleanLinesFullTableDoesNotLoop(t *testing.T) {
	t.Parallel()
	table := filepath.Join(t.TempDir(), "check.clean")
	saveCleanLines(table, []uint64{1, 2, 3})
	data, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	for at := cleanHeader; at < len(data); at += 8 {
		data[at] = 0x5a // every slot holds something
	}
	if err := os.WriteFile(table, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := loadCleanLines(table)
	if c == nil {
		t.Fatal("the table was refused before the lookup could be tested")
	}
	done := make(chan bool)
	go func() { done <- c.has(lineKey("not there")) }()
	select {
	case found := <-done:
		if found {
			t.Error("a key not in the table was found")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lookup in a full table did not end")
	}
}
