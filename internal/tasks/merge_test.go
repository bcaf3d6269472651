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
	// Ours' order, with the record only theirs has appended: the merge
	// changes the lines the sides changed, not where the lines are.
	var ids []string
	for _, line := range strings.Split(strings.TrimSuffix(string(res.Data), "\n"), "\n") {
		if line == mem {
			ids = append(ids, "memory")
			continue
		}
		ids = append(ids, line[len(`{"id":"`):len(`{"id":"m-a`)])
	}
	if got := strings.Join(ids, " "); got != "m-a m-b memory m-c" {
		t.Errorf("merged records in order %s, want m-a m-b memory m-c (ours' order, theirs' new record last):\n%s", got, res.Data)
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

// TestFieldRuleEach pins each rule of fieldRules on its own: the value a
// field gets when both sides changed it differently.
func TestFieldRuleEach(t *testing.T) {
	t.Parallel()
	dep := func(id string) string { return `{"issue_id":"m-a","depends_on_id":"` + id + `","type":"blocks"}` }
	comment := func(id, text string) string { return `{"id":` + id + `,"text":"` + text + `"}` }
	cases := []struct {
		key                string
		base, ours, theirs string // raw JSON; "" is absent
		newerTheirs        bool
		want               string // "" is absent
		conflict           bool
	}{
		{key: "title", base: `"t"`, ours: `"o"`, theirs: `"x"`, want: `"o"`},
		{key: "design", base: `"t"`, ours: `"o"`, theirs: `"x"`, newerTheirs: true, want: `"x"`},
		{key: "notes", base: `"a"`, ours: `"a\nb"`, theirs: `"a\nc"`, want: `"a\nb\nc"`},
		{key: "status", base: `"open"`, ours: `"in_progress"`, theirs: `"closed"`, want: `"closed"`},
		{key: "status", base: `"open"`, ours: `"closed"`, theirs: `"blocked"`, newerTheirs: true, want: `"closed"`},
		{key: "status", base: `"open"`, ours: `"in_progress"`, theirs: `"blocked"`, newerTheirs: true, want: `"blocked"`},
		{key: "status", base: `"open"`, ours: `"in_progress"`, theirs: `"blocked"`, want: `"in_progress"`},
		{key: "priority", base: `2`, ours: `3`, theirs: `1`, want: `1`},
		{key: "priority", base: `2`, ours: `0`, theirs: `1`, want: `0`},
		{key: "priority", base: `2`, ours: `3`, theirs: `"high"`, want: `3`},
		{key: "started_at", base: `"2026-01-01T00:00:00Z"`, ours: `"2026-01-03T00:00:00Z"`, theirs: `"2026-01-02T00:00:00Z"`, want: `"2026-01-03T00:00:00Z"`},
		{key: "comment_count", base: `1`, ours: `2`, theirs: `3`, want: `2`},
		{key: "close_reason", ours: ``, theirs: `"done"`, base: `"x"`, want: `"done"`},
		{key: "close_reason", ours: `"fixed"`, theirs: `"done"`, base: `"x"`, want: `"fixed"`},
		{key: "labels", base: `["a","b"]`, ours: `["a"]`, theirs: `["a","b","c"]`, want: `["a","c"]`},
		{key: "labels", base: `["a"]`, ours: `[]`, theirs: `["b"]`, want: `["b"]`},
		{key: "dependencies", base: `[` + dep("m-b") + `]`, ours: `[` + dep("m-b") + `,` + dep("m-c") + `]`, theirs: `[]`, want: `[` + dep("m-c") + `]`},
		{key: "comments", base: `[]`, ours: `[` + comment("1", "o") + `]`, theirs: `[` + comment("2", "t") + `]`, want: `[` + comment("1", "o") + `,` + comment("2", "t") + `]`},
		{key: "assignee", base: `"a"`, ours: `"ann"`, theirs: `"bob"`, conflict: true},
		{key: "x_custom", ours: `1`, theirs: `2`, conflict: true},
		// One side left it alone: the other side's change, no rule needed.
		{key: "assignee", base: `"a"`, ours: `"a"`, theirs: `"bob"`, want: `"bob"`},
		{key: "assignee", base: `"a"`, ours: `"ann"`, theirs: `"ann"`, want: `"ann"`},
	}
	raw := func(s string) []byte {
		if s == "" {
			return nil
		}
		return []byte(s)
	}
	for _, c := range cases {
		s := sides{base: raw(c.base), ours: raw(c.ours), theirs: raw(c.theirs), newerTheirs: c.newerTheirs}
		got, ok := s.merge(c.key)
		if ok == c.conflict {
			t.Errorf("%s %s/%s/%s: settled = %v, want %v", c.key, c.base, c.ours, c.theirs, ok, !c.conflict)
			continue
		}
		if !c.conflict && string(got) != c.want {
			t.Errorf("%s %s/%s/%s (newer theirs %v) = %s, want %s", c.key, c.base, c.ours, c.theirs, c.newerTheirs, got, c.want)
		}
	}
}
