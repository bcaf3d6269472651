package tasks

import (
	"strings"
	"testing"
)

func jl(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

const (
	mA  = `{"id":"m-a","title":"A","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","labels":["x","y"]}`
	mB  = `{"id":"m-b","title":"B","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","notes":"start"}`
	mC  = `{"id":"m-c","title":"C","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
	mem = `{"_type":"memory","key":"k","value":"v"}`
)

func issueOf(t *testing.T, data []byte, id string) *Issue {
	t.Helper()
	s, err := Parse(data)
	if err != nil {
		t.Fatalf("merged output does not parse: %v\n%s", err, data)
	}
	iss, err := s.Get(id)
	if err != nil {
		t.Fatalf("%s missing from the merge:\n%s", id, data)
	}
	return iss
}

func TestMergeNonOverlapping(t *testing.T) {
	t.Parallel()
	base := jl(mA, mB, mem)
	ours := jl(strings.Replace(mA, `"title":"A"`, `"title":"A2"`, 1), mB, mem)
	theirs := jl(mA, strings.Replace(mB, `"priority":2`, `"priority":1`, 1), mC, mem)
	res, err := Merge(base, ours, theirs)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("Merge = %v, %v", res, err)
	}
	if issueOf(t, res.Data, "m-a").Title != "A2" || issueOf(t, res.Data, "m-b").Priority != 1 || issueOf(t, res.Data, "m-c").Title != "C" {
		t.Errorf("merge lost an edit:\n%s", res.Data)
	}
	if !strings.HasSuffix(string(res.Data), mem+"\n") {
		t.Errorf("memory line lost:\n%s", res.Data)
	}
}

func TestMergeFieldRules(t *testing.T) {
	t.Parallel()
	base := jl(mA, mB)
	// Ours: newer title, appended notes, a label removed, priority 3.
	ours := jl(
		`{"id":"m-a","title":"A ours","status":"open","priority":3,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-05T00:00:00Z","labels":["x"]}`,
		`{"id":"m-b","title":"B","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z","notes":"start\nours"}`,
	)
	// Theirs: older title, closed, a label added, appended notes, a dependency.
	theirs := jl(
		`{"id":"m-a","title":"A theirs","status":"closed","priority":1,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-03T00:00:00Z","closed_at":"2026-01-03T00:00:00Z","close_reason":"done","labels":["x","y","z"],"dependencies":[{"issue_id":"m-a","depends_on_id":"m-b","type":"related","created_at":"2026-01-03T00:00:00Z"}]}`,
		`{"id":"m-b","title":"B","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-03T00:00:00Z","notes":"start\ntheirs"}`,
	)
	res, err := Merge(base, ours, theirs)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("Merge = %+v, %v", res, err)
	}
	a := issueOf(t, res.Data, "m-a")
	if a.Title != "A ours" {
		t.Errorf("title = %q: the newer updated_at should win", a.Title)
	}
	if a.Status != StatusClosed || a.ClosedAt.IsZero() || a.CloseReason != "done" {
		t.Errorf("status = %q closed_at %v reason %q: closed should win", a.Status, a.ClosedAt, a.CloseReason)
	}
	if a.Priority != 1 {
		t.Errorf("priority = %d: the more urgent should win", a.Priority)
	}
	if strings.Join(a.Labels, ",") != "x,z" {
		t.Errorf("labels = %v: y was removed in ours (removal wins), z added in theirs", a.Labels)
	}
	if len(a.Deps) != 1 || a.Deps[0].DependsOnID != "m-b" {
		t.Errorf("deps = %+v", a.Deps)
	}
	if got := a.UpdatedAt.Format("2006-01-02"); got != "2026-01-05" {
		t.Errorf("updated_at = %s, want the later", got)
	}
	if b := issueOf(t, res.Data, "m-b"); b.Notes != "start\nours\ntheirs" {
		t.Errorf("notes = %q, want both additions", b.Notes)
	}
}

func TestMergeConflictAndDeletion(t *testing.T) {
	t.Parallel()
	base := jl(mA, mB, mC)
	ours := jl(strings.Replace(mA, `"title":"A"`, `"title":"A","assignee":"ann"`, 1), mB)
	theirs := jl(strings.Replace(mA, `"title":"A"`, `"title":"A","assignee":"bob"`, 1), strings.Replace(mB, `"title":"B"`, `"title":"B2"`, 1))
	res, err := Merge(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0] != "m-a" {
		t.Fatalf("conflicts = %v, want m-a (claimed by two people)", res.Conflicts)
	}
	if res.Issues != 1 {
		t.Errorf("Issues = %d, want 1 (m-b merged; m-a is between markers, m-c deleted)", res.Issues)
	}
	out := string(res.Data)
	if !strings.Contains(out, "<<<<<<< ours\n") || !strings.Contains(out, `"assignee":"ann"`) || !strings.Contains(out, `"assignee":"bob"`) {
		t.Errorf("no conflict markers with both sides:\n%s", out)
	}
	if !strings.Contains(out, `"title":"B2"`) {
		t.Errorf("m-b was deleted in ours but changed in theirs: the change must survive\n%s", out)
	}
	if strings.Contains(out, `"id":"m-c"`) {
		t.Errorf("m-c was deleted in ours and untouched in theirs: it must go\n%s", out)
	}
}

func TestChangedIDs(t *testing.T) {
	t.Parallel()
	before := `{"id":"x-1","title":"same"}` + "\n" + `{"id":"x-2","title":"old"}` + "\n" + `{"id":"x-3","title":"gone"}` + "\n"
	after := `{"id":"x-2","title":"new"}` + "\n" + `{"id":"x-1","title":"same"}` + "\n" + `{"id":"x-4","title":"added"}` + "\n"
	got, err := ChangedIDs([]byte(before), []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "x-2 x-3 x-4" {
		t.Errorf("ChangedIDs = %v, want x-2 (changed) x-3 (removed) x-4 (added); a moved line is no change", got)
	}
	if got, _ := ChangedIDs(nil, nil); len(got) != 0 {
		t.Errorf("ChangedIDs of two empty files = %v", got)
	}
}

func TestMergeKeepsOursByteOrderMark(t *testing.T) {
	t.Parallel()
	line := `{"id":"g-a","title":"a","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z"}` + "\n"
	res, err := Merge([]byte(line), []byte("\xEF\xBB\xBF"+line), []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Data) != "\xEF\xBB\xBF"+line {
		t.Fatalf("merged = %q", res.Data)
	}
}
