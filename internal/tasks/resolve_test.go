package tasks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/gitx/gitxtest"
)

// stoppedMerge makes a repository whose index holds each path unmerged with
// the given base, ours and theirs, and whose working tree has ours.
func stoppedMerge(t *testing.T, files map[string][3]string) string {
	return gitxtest.StoppedMerge(t, files, nil)
}

const (
	rBase = `{"id":"x-1","title":"shared","status":"open","priority":2,"updated_at":"2026-11-20T00:00:00Z"}` + "\n"
	rOurs = rBase + `{"id":"x-2","title":"ours","status":"open","priority":2}` + "\n"
	rThem = rBase + `{"id":"x-3","title":"theirs","status":"open","priority":2}` + "\n"
)

func TestResolveMergesBothSidesFromTheIndex(t *testing.T) {
	t.Parallel()
	root := stoppedMerge(t, map[string][3]string{
		".beads/issues.jsonl": {rBase, rOurs, rThem},
		".ledger/facts/a.md":  {"# A\n", "# A\n- o\n", "# A\n- t\n"},
		"src/x.go":            {"a", "b", "c"},
	})
	res, err := Resolve(root, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Path != ".beads/issues.jsonl" || res[0].Outcome != Merged || res[0].Issues != 3 ||
		res[1].Path != ".ledger/facts/a.md" || res[1].Outcome != Manual {
		t.Fatalf("Resolve = %+v, want the issues merged (3 issues) and the facts file manual; src/x.go is not memctl's", res)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".beads", "issues.jsonl"))
	if !strings.Contains(string(data), `"ours"`) || !strings.Contains(string(data), `"theirs"`) {
		t.Errorf("merged file lacks a side:\n%s", data)
	}
	if facts, _ := os.ReadFile(filepath.Join(root, ".ledger", "facts", "a.md")); string(facts) != "# A\n- o\n" {
		t.Errorf("a manual file was rewritten: %q", facts)
	}
}

func TestResolveConflictWritesMarkers(t *testing.T) {
	t.Parallel()
	ours := strings.Replace(rBase, `"open","priority":2`, `"open","priority":2,"assignee":"ann"`, 1)
	theirs := strings.Replace(rBase, `"open","priority":2`, `"open","priority":2,"assignee":"bob"`, 1)
	root := stoppedMerge(t, map[string][3]string{".beads/issues.jsonl": {rBase, ours, theirs}})
	res, err := Resolve(root, []string{".beads/issues.jsonl"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Outcome != Conflicted || len(res[0].Conflicts) != 1 || res[0].Conflicts[0] != "x-1" {
		t.Fatalf("Resolve = %+v, want a conflict on x-1", res)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".beads", "issues.jsonl"))
	if len(gitx.ConflictMarkers(data)) != 3 {
		t.Errorf("want one conflict's markers:\n%s", data)
	}
}

func TestResolveRefusals(t *testing.T) {
	t.Parallel()
	root := stoppedMerge(t, map[string][3]string{".beads/issues.jsonl": {rBase, rOurs, rThem}})
	if _, err := Resolve(root, []string{"src/x.go"}, false); !errors.Is(err, ErrNotMemctlFile) {
		t.Errorf("a file that is not memctl's: err = %v", err)
	}
	if _, err := Resolve(root, []string{".ledger/config.toml"}, false); !errors.Is(err, gitx.ErrNotUnmerged) {
		t.Errorf("a merged file: err = %v", err)
	}
	file := filepath.Join(root, ".beads", "issues.jsonl")
	if err := os.WriteFile(file, []byte(rBase), 0o644); err != nil {
		t.Fatal(err)
	}
	var edited *EditedError
	if _, err := Resolve(root, nil, false); !errors.As(err, &edited) {
		t.Fatalf("a file edited after the merge stopped: err = %v, want EditedError", err)
	}
	if data, _ := os.ReadFile(file); string(data) != rBase {
		t.Errorf("the edited file was overwritten")
	}
	if res, err := Resolve(root, nil, true); err != nil || res[0].Outcome != Merged {
		t.Errorf("with force: %+v, %v", res, err)
	}
}

func TestResolvedFileIsResolvedAndResolvesAgain(t *testing.T) {
	t.Parallel()
	root := stoppedMerge(t, map[string][3]string{".beads/issues.jsonl": {rBase, rOurs, rThem}})
	if ok, err := IsResolved(root, ".beads/issues.jsonl"); err != nil || ok {
		t.Fatalf("our side only: IsResolved = %v, %v; want false", ok, err)
	}
	if _, err := Resolve(root, nil, false); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsResolved(root, ".beads/issues.jsonl"); err != nil || !ok {
		t.Fatalf("after Resolve: IsResolved = %v, %v; want true", ok, err)
	}
	res, err := Resolve(root, nil, false)
	if err != nil || len(res) != 1 || res[0].Outcome != Resolved || res[0].Issues != 3 {
		t.Fatalf("Resolve again = %+v, %v; want resolved, 3 issues, no EditedError", res, err)
	}
	if ok, _ := IsResolved(root, ".ledger/config.toml"); ok {
		t.Errorf("a path that is not unmerged is not resolved")
	}
	file := filepath.Join(root, ".beads", "issues.jsonl")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, append(data, []byte(`{"id":"x-4","title":"edit","status":"open","priority":2}`+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _ := IsResolved(root, ".beads/issues.jsonl"); ok {
		t.Errorf("an edit after resolving is not the resolution")
	}
}
