package tasks

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Group is one group of a count: its name and how many issues it holds.
type Group struct {
	Count int    `json:"count"` // bd prints the keys sorted
	Group string `json:"group"`
}

// GroupKeys are the ways CountBy groups, bd count's --by-* flags.
var GroupKeys = []string{"status", "priority", "type", "assignee", "label"}

// CountBy counts issues by status, priority (P0…), type, assignee
// ("(unassigned)" for none) or label (an issue counts once under each of
// its labels, "(no labels)" for none), as bd count does; the groups are
// sorted by name.
func CountBy(issues []*Issue, by string) ([]Group, error) {
	if !slices.Contains(GroupKeys, by) {
		return nil, fmt.Errorf("cannot group by %q; use one of %v", by, GroupKeys)
	}
	n := map[string]int{}
	for _, iss := range issues {
		addToGroups(n, iss, by)
	}
	return sortGroups(n), nil
}

// addToGroups counts iss in its groups by one of GroupKeys.
func addToGroups(n map[string]int, iss *Issue, by string) {
	switch by {
	case "status":
		n[iss.Status]++
	case "priority":
		n["P"+strconv.Itoa(iss.Priority)]++
	case "type":
		n[iss.IssueType]++
	case "assignee":
		n[cmp.Or(iss.Assignee, "(unassigned)")]++
	case "label":
		if len(iss.Labels) == 0 {
			n["(no labels)"]++
		}
		for _, l := range iss.Labels {
			n[l]++
		}
	}
}

// sortGroups lists the counts by group name.
func sortGroups(n map[string]int) []Group {
	out := make([]Group, 0, len(n))
	for g, c := range n {
		out = append(out, Group{Count: c, Group: g})
	}
	slices.SortFunc(out, func(a, b Group) int { return cmp.Compare(a.Group, b.Group) })
	return out
}

// Stale returns the issues not updated in the given number of days
// before now, least recently updated first (bd stale). Closed issues are
// not stale; status, when set, keeps only that status.
func Stale(issues []*Issue, days int, status string, now time.Time) []*Issue {
	cut := now.Add(-time.Duration(days) * 24 * time.Hour)
	var out []*Issue
	for _, iss := range issues {
		switch {
		case iss.Status == StatusClosed, status != "" && iss.Status != status, !iss.UpdatedAt.Before(cut):
		default:
			out = append(out, iss)
		}
	}
	slices.SortStableFunc(out, func(a, b *Issue) int {
		if c := a.UpdatedAt.Compare(b.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// Defer sets id deferred, hidden from ready; a non-zero until also sets
// defer_until, after which ready shows it again (bd defer).
func (s *Store) Defer(id string, until time.Time, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	if err := s.setStatus(r, iss, StatusDeferred, now); err != nil { // a closed one too, as bd
		return nil, err
	}
	if !until.IsZero() {
		r.setTime("defer_until", until)
	}
	return s.touch(r, now)
}

// Undefer opens a deferred issue again and clears its defer date (bd
// undefer). An issue that is not deferred is left alone: a
// *NotDeferredError, which bd reports and goes on.
func (s *Store) Undefer(id string, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if iss.Status != StatusDeferred {
		return nil, &NotDeferredError{ID: id, Status: iss.Status}
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	if err := s.setStatus(r, iss, StatusOpen, now); err != nil {
		return nil, err
	}
	r.del("defer_until")
	return s.touch(r, now)
}

// NotDeferredError is undefer of an issue that is not deferred.
type NotDeferredError struct{ ID, Status string }

func (e *NotDeferredError) Error() string {
	return fmt.Sprintf("%s is not deferred (status: %s)", e.ID, e.Status)
}

// EpicProgress is an open epic and how far its children are (bd epic
// status).
type EpicProgress struct {
	Epic          *Issue
	Total, Closed int
	// Eligible: every child is closed, so the epic can be closed.
	Eligible bool
}

// EpicStatus lists the open epics (not closed) with their direct
// children's progress, in priority order.
func EpicStatus(g *Graph, now time.Time) []EpicProgress {
	var epics []*Issue
	for _, iss := range g.Store.Issues() {
		if iss.IssueType == "epic" && iss.Status != StatusClosed {
			epics = append(epics, iss)
		}
	}
	SortIssues(epics, SortPriority, now)
	out := make([]EpicProgress, 0, len(epics))
	for _, e := range epics {
		p := EpicProgress{Epic: e}
		for _, c := range g.Children(e.ID) {
			p.Total++
			if c.Status == StatusClosed {
				p.Closed++
			}
		}
		p.Eligible = p.Total > 0 && p.Closed == p.Total
		out = append(out, p)
	}
	return out
}
