package tasks

import (
	"strings"
	"testing"
	"time"
)

func TestCountByState(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(eras))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	who := Actor{Name: "ann"}
	blocker, _ := s.Create(NewIssue{Title: "blocker", Type: "task"}, "bd", who, now)
	if _, err := s.Create(NewIssue{Title: "waits", Type: "task", Deps: []DepSpec{{Type: DepBlocks, ID: blocker.ID}}}, "bd", who, now); err != nil {
		t.Fatal(err)
	}
	got := Count(s, now)
	// eras: a1, a2 and a5 open (a5's blocker a3 is closed), a3 closed, a4 a
	// tombstone (not counted); then blocker (open, ready) and waits (open,
	// blocked).
	want := Stats{Total: 6, Open: 5, Closed: 1, Blocked: 1, Ready: 4, AverageLeadTimeHours: got.AverageLeadTimeHours}
	if got != want {
		t.Errorf("Count = %+v\nwant    %+v", got, want)
	}
}

func TestCountEpicsAndLeadTime(t *testing.T) {
	t.Parallel()
	pc := func(child, parent string) string {
		return `"dependencies":[` + dep(child, parent, DepParentChild) + `]`
	}
	epic := `"issue_type":"epic"`
	lines := []string{
		// done: both children closed, eligible
		line("done", epic), line("d1", closed+","+pc("d1", "done")), line("d2", `"status":"closed","closed_at":"2026-01-01T02:00:00Z",`+pc("d2", "done")),
		// open child: not eligible
		line("busy", epic), line("b1", closed+","+pc("b1", "busy")), line("b2", pc("b2", "busy")),
		// no children: not eligible
		line("empty", epic),
		// closed already: not eligible
		line("shut", epic+","+closed), line("s1", closed+","+pc("s1", "shut")),
		// a closed task is no epic
		line("task", ""), line("t1", closed+","+pc("t1", "task")),
	}
	s, err := Parse([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := Count(s, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if got.EpicsEligibleForClosure != 1 {
		t.Errorf("EpicsEligibleForClosure = %d, want 1 (done)", got.EpicsEligibleForClosure)
	}
	// closed: d1, b1, s1, t1 and shut after 24 h, d2 after 2 h
	if want := (5*24.0 + 2) / 6; got.AverageLeadTimeHours != want {
		t.Errorf("AverageLeadTimeHours = %v, want %v", got.AverageLeadTimeHours, want)
	}
	if empty := Count(mustParse(t, line("x", "")), time.Time{}); empty.AverageLeadTimeHours != 0 {
		t.Errorf("no closed issue: AverageLeadTimeHours = %v, want 0", empty.AverageLeadTimeHours)
	}
}

func mustParse(t *testing.T, lines ...string) *Store {
	t.Helper()
	s, err := Parse([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
