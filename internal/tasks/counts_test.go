package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file bd 1.0.5 exported: each record carries its derived counts.
const countsFile = `{"_type":"issue","id":"t-a","title":"A","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-23T23:51:47Z","updated_at":"2026-11-23T23:51:51Z","dependencies":[{"issue_id":"t-a","depends_on_id":"t-b","type":"blocks","created_at":"2026-11-23T23:51:51Z","metadata":"{}"}],"dependency_count":1,"dependent_count":0,"comment_count":0}
{"_type":"issue","id":"t-b","title":"B","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-23T23:51:48Z","updated_at":"2026-11-23T23:51:48Z","dependency_count":0,"dependent_count":1,"comment_count":0}
{"_type":"issue","id":"t-c","title":"C","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-23T23:51:50Z","updated_at":"2026-11-23T23:51:50Z","dependency_count":0,"dependent_count":0,"comment_count":0}
{"_type":"issue","id":"t-d","title":"D","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-23T23:51:50Z","updated_at":"2026-11-23T23:51:50Z"}
`

// saveLines saves s to a temporary file and returns its lines.
func saveLines(t *testing.T, s *Store) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "issues.jsonl")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func countsOf(t *testing.T, line string) string {
	t.Helper()
	r, err := parseRecord([]byte(line), 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, k := range []string{keyDependencyCount, keyDependentCount, keyCommentCount} {
		if v := r.get(k); v != nil {
			b.WriteString(string(v))
		} else {
			b.WriteString("-")
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func TestDerivedCountsStayCurrent(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	s, err := Parse([]byte(countsFile))
	if err != nil {
		t.Fatal(err)
	}
	// C blocks on B now, A gets a comment, D (no counts) blocks on B too.
	if err := s.AddDep("t-c", "t-b", DepBlocks, Actor{Name: "x"}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddComment("t-a", "x", "hello", strings.NewReader(strings.Repeat("r", 64)), now); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDep("t-d", "t-b", DepBlocks, Actor{Name: "x"}, now); err != nil {
		t.Fatal(err)
	}
	lines := saveLines(t, s)
	for i, want := range []string{"1 0 1", "0 3 0", "1 0 0", "- - -"} {
		if got := countsOf(t, lines[i]); got != want {
			t.Errorf("line %d counts (dependency dependent comment) = %s, want %s:\n%s", i+1, got, want, lines[i])
		}
	}
	// Removing an edge lowers the target's count, though the target itself
	// was not changed.
	if err := s.RemoveDep("t-a", "t-b", now); err != nil {
		t.Fatal(err)
	}
	lines = saveLines(t, s)
	if got := countsOf(t, lines[1]); got != "0 2 0" {
		t.Errorf("after dep remove, B's counts = %s, want 0 2 0:\n%s", got, lines[1])
	}
	if got := countsOf(t, lines[0]); got != "0 0 1" {
		t.Errorf("after dep remove, A's counts = %s, want 0 0 1:\n%s", got, lines[0])
	}
}

func TestDerivedCountsUntouchedLinesKept(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	orig := strings.Split(strings.TrimSuffix(countsFile, "\n"), "\n")
	s, err := Parse([]byte(countsFile))
	if err != nil {
		t.Fatal(err)
	}
	title := "C2"
	if _, err := s.Update("t-c", Changes{Title: &title}, now); err != nil {
		t.Fatal(err)
	}
	lines := saveLines(t, s)
	for i := range orig {
		if (lines[i] != orig[i]) != (i == 2) {
			t.Errorf("line %d changed = %v, want only line 3 changed:\n%s\n%s", i+1, lines[i] != orig[i], orig[i], lines[i])
		}
	}
}
