package tasks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Actor is who makes a change.
type Actor struct {
	Name  string
	Email string
}

// Changes is what update sets; nil fields are left alone.
type Changes struct {
	Status, Title, Description, Notes, AppendNotes, Design, Assignee *string
	Acceptance, Type, ExternalRef                                    *string
	Priority, EstimatedMinutes                                       *int
	AddLabels, RemoveLabels                                          []string
	// SetLabels replaces every label (an empty list removes them all).
	SetLabels *[]string
	Defer     *time.Time // zero time clears
	Due       *time.Time // zero time clears
	// Parent reparents the issue ("" removes its parent); its id stays.
	Parent *string
	// By is who makes the change, for the edge a new parent adds.
	By Actor
}

// Update applies c to the issue id.
func (s *Store) Update(id string, c Changes, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if c, err = s.gateChanges(c); err != nil {
		return nil, err
	}
	r := iss.rec
	now = now.UTC().Truncate(time.Second)
	if c.Title != nil {
		if err := checkTitle(*c.Title); err != nil {
			return nil, err
		}
		r.set("title", *c.Title)
	}
	if c.Priority != nil {
		if err := checkPriority(*c.Priority); err != nil {
			return nil, err
		}
		r.set("priority", *c.Priority)
	}
	if c.Description != nil {
		r.setString("description", *c.Description)
	}
	if c.Design != nil {
		r.setString("design", *c.Design)
	}
	if c.Acceptance != nil {
		r.setString("acceptance_criteria", *c.Acceptance)
	}
	if c.ExternalRef != nil {
		r.setString("external_ref", *c.ExternalRef)
	}
	if c.Type != nil {
		typ, ok := NormalizeType(*c.Type)
		if !ok {
			return nil, &ValidationError{Field: "type", Message: fmt.Sprintf("unknown issue type %q; use bug, feature, task, epic, chore, decision, spike, story or milestone", *c.Type)}
		}
		r.set("issue_type", typ)
	}
	if c.EstimatedMinutes != nil {
		if *c.EstimatedMinutes < 0 {
			return nil, &ValidationError{Field: "estimated_minutes", Message: fmt.Sprintf("%d is negative; give minutes ≥ 0", *c.EstimatedMinutes)}
		}
		r.set("estimated_minutes", *c.EstimatedMinutes)
	}
	if c.Due != nil {
		r.setTime("due_at", *c.Due)
	}
	if c.Parent != nil {
		if err := s.reparent(r, iss, *c.Parent, c.By, now); err != nil {
			return nil, err
		}
	}
	if c.Notes != nil {
		r.setString("notes", *c.Notes)
	}
	if c.AppendNotes != nil && *c.AppendNotes != "" {
		notes := iss.Notes
		if c.Notes != nil {
			notes = *c.Notes
		}
		if notes != "" {
			notes += "\n"
		}
		r.setString("notes", notes+*c.AppendNotes)
	}
	if c.Assignee != nil {
		r.setString("assignee", *c.Assignee)
	}
	if c.Status != nil {
		if err := s.setStatus(r, iss, *c.Status, now); err != nil {
			return nil, err
		}
	}
	if len(c.AddLabels)+len(c.RemoveLabels) > 0 || c.SetLabels != nil {
		base := iss.Labels
		if c.SetLabels != nil {
			base = *c.SetLabels
		}
		labels := slices.DeleteFunc(slices.Clone(base), func(l string) bool { return slices.Contains(c.RemoveLabels, l) })
		labels = cleanLabels(append(labels, c.AddLabels...))
		if len(labels) == 0 {
			r.del("labels")
		} else {
			r.set("labels", labels)
		}
	}
	if c.Defer != nil {
		r.setTime("defer_until", *c.Defer)
		// As bd: deferring sets the status deferred, and clearing the date
		// of a deferred issue opens it again, unless the same update sets
		// a status; a closed issue stays closed.
		st := iss.Status
		switch {
		case c.Status != nil || st == StatusClosed:
		case !c.Defer.IsZero() && st != StatusDeferred:
			if err := s.setStatus(r, iss, StatusDeferred, now); err != nil {
				return nil, err
			}
		case c.Defer.IsZero() && st == StatusDeferred:
			if err := s.setStatus(r, iss, StatusOpen, now); err != nil {
				return nil, err
			}
		}
	}
	return s.touch(r, now)
}

// gateChanges passes the text an update sets through the write gate and
// returns the changes with that text as the gate let it through (redacted
// in redact mode), never writing through c's pointers.
func (s *Store) gateChanges(c Changes) (Changes, error) {
	var fields []text
	add := func(f func(string, *string) text, name string, v **string) {
		if *v != nil {
			cp := **v
			*v = &cp
			fields = append(fields, f(name, &cp))
		}
	}
	add(oneLineField, "title", &c.Title)
	add(textField, "description", &c.Description)
	add(textField, "design", &c.Design)
	add(textField, "notes", &c.Notes)
	add(textField, "append_notes", &c.AppendNotes)
	add(oneLineField, "assignee", &c.Assignee)
	add(oneLineField, "status", &c.Status)
	add(textField, "acceptance_criteria", &c.Acceptance)
	add(oneLineField, "external_ref", &c.ExternalRef)
	add(oneLineField, "parent", &c.Parent)
	c.AddLabels = slices.Clone(c.AddLabels)
	fields = append(fields, labelFields("labels", c.AddLabels)...)
	if c.SetLabels != nil {
		set := slices.Clone(*c.SetLabels)
		c.SetLabels = &set
		fields = append(fields, labelFields("labels", set)...)
	}
	return c, s.gate(fields...)
}

// reparent replaces the issue's parent-child edge by one to parent ("" to
// have none), as bd update --parent does: the id stays. A parent that is
// the issue itself or below it would make a cycle and is refused.
func (s *Store) reparent(r *Record, iss *Issue, parent string, by Actor, now time.Time) error {
	if parent == iss.ID {
		return &ValidationError{Field: "parent", Message: fmt.Sprintf("%s cannot be its own parent", iss.ID)}
	}
	if parent != "" {
		if _, err := s.peek(parent); err != nil {
			return err
		}
		for p := parent; p != ""; {
			if p == iss.ID {
				return &CycleError{Path: []string{iss.ID, parent, iss.ID}}
			}
			next := ""
			if pi := s.live(p); pi != nil {
				for _, d := range pi.Deps {
					if d.Type == DepParentChild {
						next = d.DependsOnID
						break
					}
				}
			}
			p = next
		}
	}
	d := decoder{line: r.Line}
	var kept [][]byte
	for i, e := range d.elements(field{key: "dependencies", raw: r.get("dependencies")}) {
		if i < len(iss.Deps) && iss.Deps[i].Type == DepParentChild {
			continue
		}
		kept = append(kept, e)
	}
	if parent != "" {
		edge, _ := json.Marshal(newDep(iss.ID, parent, DepParentChild, by, now))
		kept = append(kept, edge)
	}
	if len(kept) == 0 {
		r.del("dependencies")
	} else {
		r.setRaw("dependencies", joinRaw(kept))
	}
	return nil
}

// setStatus changes the status keeping bd's invariants: closed_at exactly
// when closed, started_at when work starts.
func (s *Store) setStatus(r *Record, iss *Issue, status string, now time.Time) error {
	if !ValidStatus(status) {
		return &ValidationError{Field: "status", Message: fmt.Sprintf("unknown status %q; use %s", status, strings.Join(builtinStatuses, ", "))}
	}
	r.set("status", status)
	if status == StatusClosed {
		if iss.ClosedAt.IsZero() {
			r.setTime("closed_at", now)
		}
	} else {
		r.del("closed_at")
		r.del("close_reason")
	}
	if status == StatusInProgress && iss.StartedAt.IsZero() {
		r.setTime("started_at", now)
	}
	return nil
}

// touch stamps updated_at and re-reads the record.
func (s *Store) touch(r *Record, now time.Time) (*Issue, error) {
	r.setTime("updated_at", now)
	if err := s.refresh(r); err != nil {
		return nil, err
	}
	return r.Issue, nil
}

// Claim makes who the assignee of id and sets it in_progress. Claiming an
// issue one already holds succeeds; one held by someone else is a
// *ClaimError.
func (s *Store) Claim(id string, who Actor, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if iss.Assignee != "" && iss.Assignee != who.Name {
		return nil, &ClaimError{ID: id, Holder: iss.Assignee}
	}
	if iss.Status == StatusClosed {
		return nil, &ValidationError{Field: "status", Message: fmt.Sprintf("issue %q is closed; reopen it before claiming", id)}
	}
	st, name := StatusInProgress, who.Name
	return s.Update(id, Changes{Status: &st, Assignee: &name}, now)
}

// DefaultCloseReason is the reason bd records when close is given none.
const DefaultCloseReason = "Closed"

// Close closes id with a reason ("" records DefaultCloseReason, as bd
// does). Closing a closed issue replaces its reason and closed_at, as bd
// 1.0.5 does.
func (s *Store) Close(id, reason string, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		reason = DefaultCloseReason
	}
	if err := s.gate(textField("close_reason", &reason)); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	if err := s.setStatus(r, iss, StatusClosed, now); err != nil {
		return nil, err
	}
	r.setTime("closed_at", now)
	r.setString("close_reason", reason)
	return s.touch(r, now)
}

// Reopen sets a closed issue open again.
func (s *Store) Reopen(id string, now time.Time) (*Issue, error) {
	st := StatusOpen
	return s.Update(id, Changes{Status: &st}, now)
}
