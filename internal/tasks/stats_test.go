package tasks

import (
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
	want := Stats{Total: 6, Open: 5, Closed: 1, Blocked: 1, Ready: 4}
	if got != want {
		t.Errorf("Count = %+v\nwant    %+v", got, want)
	}
}
