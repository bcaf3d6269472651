package tasks

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Filter selects issues as bd's list, count and search flags do. The zero
// Filter matches every live issue except closed and pinned ones (bd's
// default view); All takes those in too.
type Filter struct {
	// Statuses: only these; none means the default view.
	Statuses []string
	// All: with no Statuses, closed and pinned issues are included.
	All              bool
	Type, Assignee   string
	NoAssignee       bool
	Labels           []string // every one of them
	LabelAny         []string // at least one of them
	NoLabels         bool
	Priority         int // -1 for any
	PriorityMin      int // -1 for none
	PriorityMax      int // -1 for none
	Parent           string
	IDs              []string
	TitleContains    string
	DescContains     string
	NotesContains    string
	EmptyDescription bool
	Query            string // bd search: in the title, the description or the id
	CreatedAfter     time.Time
	CreatedBefore    time.Time
	UpdatedAfter     time.Time
	UpdatedBefore    time.Time
	ClosedAfter      time.Time
	ClosedBefore     time.Time
}

// AnyPriority is the Filter's Priority, PriorityMin and PriorityMax when
// they do not filter.
const AnyPriority = -1

// NewFilter is a Filter with no priority bounds.
func NewFilter() Filter {
	return Filter{Priority: AnyPriority, PriorityMin: AnyPriority, PriorityMax: AnyPriority}
}

// Select returns the issues of the pool that f matches, in pool order.
// Filters on text decode the issues they look at (Store.Get).
func (f Filter) Select(s *Store, g *Graph, pool []*Issue) []*Issue {
	needsText := f.needsText()
	var out []*Issue
	for _, iss := range pool {
		if !f.matchCheap(g, iss) {
			continue
		}
		if needsText {
			full, err := s.Get(iss.ID)
			if err != nil || !f.matchText(full) {
				continue
			}
			iss = full
		}
		out = append(out, iss)
	}
	return out
}

// needsText reports whether f reads fields the cache does not hold.
func (f Filter) needsText() bool {
	return f.DescContains != "" || f.NotesContains != "" || f.EmptyDescription || f.Query != ""
}

// Find returns the live issues f selects, sorted by policy ("" keeps the
// store's order), at most limit of them (0: all), and how many there were.
// Over the cache, only the issues returned are read.
func (f Filter) Find(s *Store, g *Graph, policy string, now time.Time, limit int) ([]*Issue, int) {
	if g.view == nil || f.needsText() {
		pool := s.Issues()
		if policy != "" {
			SortIssues(pool, policy, now)
		}
		out := f.Select(s, g, pool)
		total := len(out)
		if limit > 0 && total > limit {
			out = out[:limit]
		}
		return out, total
	}
	var keys []sortKey
	s.scan(func(iss *Issue) {
		if f.matchCheap(g, iss) {
			keys = append(keys, keyOf(iss, iss.idx))
		}
	})
	total := len(keys)
	if policy != "" {
		keys = firstKeys(keys, policy, now, limit)
	} else if limit > 0 && total > limit {
		keys = keys[:limit]
	}
	return g.issuesOf(keys), total
}

// Count returns how many live issues f selects and, with by, how many in
// each group (CountBy).
func (f Filter) Count(s *Store, g *Graph, by string) (int, []Group, error) {
	if by != "" && !slices.Contains(GroupKeys, by) {
		return 0, nil, fmt.Errorf("cannot group by %q; use one of %v", by, GroupKeys)
	}
	n, groups := 0, map[string]int{}
	count := func(iss *Issue) {
		n++
		if by != "" {
			addToGroups(groups, iss, by)
		}
	}
	if g.view == nil || f.needsText() {
		for _, iss := range f.Select(s, g, s.Issues()) {
			count(iss)
		}
	} else {
		s.scan(func(iss *Issue) {
			if f.matchCheap(g, iss) {
				count(iss)
			}
		})
	}
	if by == "" {
		return n, nil, nil
	}
	return n, sortGroups(groups), nil
}

func (f Filter) matchCheap(g *Graph, iss *Issue) bool {
	switch {
	case len(f.Statuses) > 0 && !slices.Contains(f.Statuses, iss.Status):
		return false
	case len(f.Statuses) == 0 && !f.All && (iss.Status == StatusClosed || iss.Status == StatusPinned):
		return false
	case f.Type != "" && iss.IssueType != f.Type:
		return false
	case f.Assignee != "" && iss.Assignee != f.Assignee:
		return false
	case f.NoAssignee && iss.Assignee != "":
		return false
	case f.Priority >= 0 && iss.Priority != f.Priority:
		return false
	case f.PriorityMin >= 0 && iss.Priority < f.PriorityMin:
		return false
	case f.PriorityMax >= 0 && iss.Priority > f.PriorityMax:
		return false
	case f.NoLabels && len(iss.Labels) > 0:
		return false
	case len(f.IDs) > 0 && !slices.Contains(f.IDs, iss.ID):
		return false
	case f.TitleContains != "" && !containsFold(iss.Title, f.TitleContains):
		return false
	case !within(iss.CreatedAt, f.CreatedAfter, f.CreatedBefore),
		!within(iss.UpdatedAt, f.UpdatedAfter, f.UpdatedBefore),
		!within(iss.ClosedAt, f.ClosedAfter, f.ClosedBefore):
		return false
	}
	for _, l := range f.Labels {
		if !slices.Contains(iss.Labels, l) {
			return false
		}
	}
	if len(f.LabelAny) > 0 && !slices.ContainsFunc(f.LabelAny, func(l string) bool { return slices.Contains(iss.Labels, l) }) {
		return false
	}
	if f.Parent != "" {
		if p := g.Parent(iss); p == nil || p.ID != f.Parent {
			return false
		}
	}
	return true
}

func (f Filter) matchText(iss *Issue) bool {
	switch {
	case f.DescContains != "" && !containsFold(iss.Description, f.DescContains):
		return false
	case f.NotesContains != "" && !containsFold(iss.Notes, f.NotesContains):
		return false
	case f.EmptyDescription && strings.TrimSpace(iss.Description) != "":
		return false
	case f.Query != "" && !containsFold(iss.Title, f.Query) && !containsFold(iss.Description, f.Query) && !containsFold(iss.ID, f.Query):
		return false
	}
	return true
}

// within reports whether t is within the bounds (a zero bound is none;
// a zero t fails any bound).
func within(t, after, before time.Time) bool {
	if after.IsZero() && before.IsZero() {
		return true
	}
	if t.IsZero() {
		return false
	}
	return (after.IsZero() || t.After(after)) && (before.IsZero() || t.Before(before))
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
