package tasks

import (
	"slices"
	"strings"
	"time"
)

// DeletePlan is what deleting some issues does, as bd delete previews it.
type DeletePlan struct {
	// Delete are the issues to delete: those named, and with cascade every
	// issue that depends on one of them, recursively.
	Delete []string
	// Links are the edges of other issues to or from them, which go.
	Links []DeleteLink
	// Referencing are the issues connected to a deleted one by an edge
	// whose text names it; the name becomes "[deleted:ID]".
	Referencing []string
	// Orphaned are the issues left depending on a deleted one (without
	// cascade): their edges to it go.
	Orphaned []string
	// Labels is how many labels the deleted issues carry.
	Labels int
}

// DeleteLink is an edge that a delete removes.
type DeleteLink struct {
	From, To, Type string
}

// textKeys are the fields in which a delete rewrites the deleted ids.
var textKeys = []string{"description", "design", "acceptance_criteria", "notes"}

// PlanDelete says what deleting ids does, changing nothing. Every id must
// name a live issue.
func (s *Store) PlanDelete(ids []string, cascade bool) (*DeletePlan, error) {
	set := map[string]bool{}
	var order []string
	for _, id := range ids {
		if _, err := s.Get(id); err != nil {
			return nil, err
		}
		if !set[id] {
			set[id] = true
			order = append(order, id)
		}
	}
	if cascade {
		for i := 0; i < len(order); i++ {
			for _, iss := range s.Issues() {
				if !set[iss.ID] && slices.ContainsFunc(iss.Deps, func(d Dep) bool { return d.DependsOnID == order[i] }) {
					set[iss.ID] = true
					order = append(order, iss.ID)
				}
			}
		}
	}
	p := &DeletePlan{Delete: order}
	connected := map[string]bool{}
	for _, iss := range s.Issues() {
		if set[iss.ID] {
			p.Labels += len(iss.Labels)
			for _, d := range iss.Deps {
				if !set[d.DependsOnID] && s.live(d.DependsOnID) != nil {
					p.Links = append(p.Links, DeleteLink{iss.ID, d.DependsOnID, d.Type})
					connected[d.DependsOnID] = true
				}
			}
			continue
		}
		for _, d := range iss.Deps {
			if set[d.DependsOnID] {
				p.Links = append(p.Links, DeleteLink{iss.ID, d.DependsOnID, d.Type})
				connected[iss.ID] = true
				if !slices.Contains(p.Orphaned, iss.ID) {
					p.Orphaned = append(p.Orphaned, iss.ID)
				}
			}
		}
	}
	for _, iss := range s.Issues() {
		if !connected[iss.ID] {
			continue
		}
		full, err := s.Get(iss.ID)
		if err != nil {
			return nil, err
		}
		for _, k := range textKeys {
			if v := fieldText(full, k); v != "" && slices.ContainsFunc(order, func(id string) bool { return replaceID(v, id) != v }) {
				p.Referencing = append(p.Referencing, iss.ID)
				break
			}
		}
	}
	return p, nil
}

// Delete carries out a plan: the deleted issues' lines go, the edges of
// other issues to them go, and the deleted ids in connected issues' text
// become "[deleted:ID]" (bd 1.0.5 deletes for good; bd 0.x's tombstones
// are not written).
func (s *Store) Delete(p *DeletePlan, now time.Time) error {
	now = now.UTC().Truncate(time.Second)
	gone := map[string]bool{}
	for _, id := range p.Delete {
		gone[id] = true
	}
	touched := map[string]bool{}
	for _, l := range p.Links {
		if !gone[l.From] {
			touched[l.From] = true
		}
	}
	for _, id := range p.Referencing {
		touched[id] = true
	}
	for id := range touched {
		iss, err := s.Get(id)
		if err != nil {
			return err
		}
		r := iss.rec
		d := decoder{line: r.Line}
		var kept [][]byte
		for i, e := range d.elements(field{key: "dependencies", raw: r.get("dependencies")}) {
			if i < len(iss.Deps) && gone[iss.Deps[i].DependsOnID] {
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) == 0 {
			r.del("dependencies")
		} else if len(kept) != len(iss.Deps) {
			r.setRaw("dependencies", joinRaw(kept))
		}
		for _, k := range textKeys {
			v := fieldText(iss, k)
			for _, id := range p.Delete {
				v = replaceID(v, id)
			}
			if v != fieldText(iss, k) {
				r.setString(k, v)
			}
		}
		if _, err := s.touch(r, now); err != nil {
			return err
		}
	}
	s.full()
	s.records = slices.DeleteFunc(s.records, func(r *Record) bool {
		return r.Kind == KindIssue && r.Issue != nil && gone[r.Issue.ID]
	})
	for id := range gone {
		delete(s.byID, id)
	}
	return nil
}

func fieldText(iss *Issue, key string) string {
	switch key {
	case "description":
		return iss.Description
	case "design":
		return iss.Design
	case "acceptance_criteria":
		return iss.AcceptanceCriteria
	case "notes":
		return iss.Notes
	}
	return ""
}

// replaceID writes "[deleted:id]" for each whole occurrence of id in s: one
// not inside a longer id (bd-1 in bd-12 or bd-1.2 is not it).
func replaceID(s, id string) string {
	if !strings.Contains(s, id) {
		return s
	}
	idChar := func(c byte) bool {
		return c == '-' || c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], id)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		start, end := i+j, i+j+len(id)
		before := start > 0 && idChar(s[start-1])
		after := end < len(s) && idChar(s[end]) && !(s[end] == '.' && (end+1 == len(s) || !idChar(s[end+1])))
		b.WriteString(s[i:start])
		if before || after || strings.HasSuffix(s[:start], "[deleted:") {
			b.WriteString(id)
		} else {
			b.WriteString("[deleted:" + id + "]")
		}
		i = end
	}
	return b.String()
}
