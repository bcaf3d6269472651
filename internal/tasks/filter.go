package tasks

import (
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
	needsText := f.DescContains != "" || f.NotesContains != "" || f.EmptyDescription || f.Query != ""
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
