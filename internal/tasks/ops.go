package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/secrets"
)

// Actor is who makes a change.
type Actor struct {
	Name  string
	Email string
}

// Errors callers branch on.
var (
	ErrInvalid = errors.New("invalid value")
	// ErrClaimed: the issue is assigned to another actor. Unlike a held
	// lock, waiting does not help: the caller should pick another issue.
	ErrClaimed = errors.New("claimed by someone else")
)

// ValidationError is a bad value for a field.
type ValidationError struct {
	Field   string
	Message string
	// Cause is the gate's *secrets.TextError when the write gate refused
	// a character.
	Cause error
}

func (e *ValidationError) Error() string {
	if e.Cause != nil {
		return e.Cause.Error() // the gate's message names the field itself
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// Unwrap makes errors.Is(err, ErrInvalid) work, and errors.As reach the
// cause.
func (e *ValidationError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrInvalid, e.Cause}
	}
	return []error{ErrInvalid}
}

// gate passes the text a write stores through the one write gate
// (secrets.Check). A character a terminal would act on is a
// *ValidationError (bad input); a secret stays a *secrets.RefusedError.
func gate(fields ...secrets.Field) error {
	err := secrets.Check(fields...)
	var te *secrets.TextError
	if errors.As(err, &te) {
		return &ValidationError{Field: te.Field, Message: fmt.Sprintf("has %s at line %d, column %d", te.What, te.Line, te.Column), Cause: te}
	}
	return err
}

// oneLineField and textField are gate fields: one-line (titles, names, labels) and
// multi-line (descriptions, notes, comments).
func oneLineField(name, s string) secrets.Field {
	return secrets.Field{Name: name, Text: s, OneLine: true}
}
func textField(name, s string) secrets.Field { return secrets.Field{Name: name, Text: s} }

func labelFields(name string, labels []string) []secrets.Field {
	out := make([]secrets.Field, len(labels))
	for i, l := range labels {
		out[i] = oneLineField(name, l)
	}
	return out
}

// ClaimError is returned when another actor holds the issue.
type ClaimError struct {
	ID, Holder string
}

func (e *ClaimError) Error() string {
	return fmt.Sprintf("issue %q is already claimed by %s", e.ID, e.Holder)
}

// Unwrap makes errors.Is(err, ErrClaimed) work.
func (e *ClaimError) Unwrap() error { return ErrClaimed }

// CycleError is a dependency that would close a cycle of blocking edges.
type CycleError struct{ Path []string }

func (e *CycleError) Error() string {
	return "dependency would create a cycle: " + strings.Join(e.Path, " → ")
}

// ValidStatus reports whether s is a status memctl may set.
func ValidStatus(s string) bool { return slices.Contains(builtinStatuses, s) }

// NormalizeType returns the canonical type for t (bd's aliases), and
// whether it is known.
func NormalizeType(t string) (string, bool) {
	if a, ok := typeAliases[t]; ok {
		t = a
	}
	return t, slices.Contains(builtinTypes, t)
}

// ValidDepType reports whether t is a dependency type bd knows.
func ValidDepType(t string) bool { return slices.Contains(depTypes, t) }

// DepSpec is one --deps entry: the new issue depends on ID with Type, or,
// when Reverse, the new issue blocks ID.
type DepSpec struct {
	Type    string
	ID      string
	Reverse bool
}

// ParseDepSpecs reads bd's --deps syntax: "id", "type:id", with
// "blocked-by:" and "depends-on:" meaning blocks, and "blocks:id" meaning
// the new issue blocks id (bd ≥ 0.51).
func ParseDepSpecs(list []string) ([]DepSpec, error) {
	var out []DepSpec
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		typ, id, ok := strings.Cut(item, ":")
		if !ok {
			out = append(out, DepSpec{Type: DepBlocks, ID: item})
			continue
		}
		switch typ {
		case "blocked-by", "depends-on":
			out = append(out, DepSpec{Type: DepBlocks, ID: id})
		case "blocks":
			out = append(out, DepSpec{Type: DepBlocks, ID: id, Reverse: true})
		default:
			if !ValidDepType(typ) {
				return nil, &ValidationError{Field: "deps", Message: fmt.Sprintf("unknown dependency type %q in %q", typ, item)}
			}
			out = append(out, DepSpec{Type: typ, ID: id})
		}
	}
	return out, nil
}

// NewIssue is what create takes.
type NewIssue struct {
	Title, Description, Design, Notes, Acceptance string
	Type, Assignee, Parent                        string
	Priority                                      int
	Labels                                        []string
	Deps                                          []DepSpec
}

func checkTitle(t string) error {
	switch {
	case strings.TrimSpace(t) == "":
		return &ValidationError{Field: "title", Message: "must not be empty"}
	case len(t) > 500:
		return &ValidationError{Field: "title", Message: fmt.Sprintf("is %d bytes; at most 500", len(t))}
	case !utf8.ValidString(t):
		return &ValidationError{Field: "title", Message: "is not valid UTF-8"}
	}
	return nil
}

func checkPriority(p int) error {
	if p < 0 || p > 4 {
		return &ValidationError{Field: "priority", Message: fmt.Sprintf("%d is out of range; use 0–4 or P0–P4", p)}
	}
	return nil
}

// Create adds an issue and returns it. Its id is a bd hash id with the
// prefix, or the next child id of n.Parent.
func (s *Store) Create(n NewIssue, prefix string, who Actor, now time.Time) (*Issue, error) {
	if err := checkTitle(n.Title); err != nil {
		return nil, err
	}
	if err := checkPriority(n.Priority); err != nil {
		return nil, err
	}
	fields := []secrets.Field{oneLineField("title", n.Title), textField("description", n.Description), textField("design", n.Design),
		textField("acceptance_criteria", n.Acceptance), textField("notes", n.Notes), oneLineField("assignee", n.Assignee), oneLineField("parent", n.Parent),
		oneLineField("created_by", who.Name), oneLineField("owner", who.Email)}
	fields = append(fields, labelFields("labels", n.Labels)...)
	for _, d := range n.Deps {
		fields = append(fields, oneLineField("deps", d.ID))
	}
	if err := gate(fields...); err != nil {
		return nil, err
	}
	typ, ok := NormalizeType(n.Type)
	if !ok {
		return nil, &ValidationError{Field: "type", Message: fmt.Sprintf("unknown issue type %q; use bug, feature, task, epic, chore, decision, spike, story or milestone", n.Type)}
	}
	var parent *Issue
	if n.Parent != "" {
		p, err := s.Get(n.Parent)
		if err != nil {
			return nil, err
		}
		parent = p
	}
	for _, d := range n.Deps {
		if _, err := s.peek(d.ID); err != nil && !strings.HasPrefix(d.ID, "external:") {
			return nil, err
		}
	}
	now = now.UTC().Truncate(time.Second)
	var id string
	var err error
	if parent != nil {
		id, err = s.childID(parent.ID)
	} else {
		id, err = s.newID(prefix, n.Title, n.Description, who.Name, now)
	}
	if err != nil {
		return nil, err
	}
	r := &Record{dirty: true}
	r.set("id", id)
	r.set("title", n.Title)
	r.setString("description", n.Description)
	r.setString("design", n.Design)
	r.setString("acceptance_criteria", n.Acceptance)
	r.setString("notes", n.Notes)
	r.set("status", StatusOpen)
	r.set("priority", n.Priority)
	r.set("issue_type", typ)
	r.setString("assignee", n.Assignee)
	r.setString("owner", who.Email)
	r.setTime("created_at", now)
	r.setString("created_by", who.Name)
	r.setTime("updated_at", now)
	labels := slices.Clone(n.Labels)
	if parent != nil {
		labels = append(labels, parent.Labels...) // bd copies the parent's labels
	}
	if labels = cleanLabels(labels); len(labels) > 0 {
		r.set("labels", labels)
	}
	var deps []depJSON
	if parent != nil {
		deps = append(deps, newDep(id, parent.ID, DepParentChild, who, now))
	}
	for _, d := range n.Deps {
		if !d.Reverse {
			deps = append(deps, newDep(id, d.ID, d.Type, who, now))
		}
	}
	if len(deps) > 0 {
		r.set("dependencies", deps)
	}
	iss, err := decodeIssue(r)
	if err != nil {
		return nil, err
	}
	r.Issue = iss
	s.add(r)
	for _, d := range n.Deps {
		if d.Reverse {
			if err := s.AddDep(d.ID, id, d.Type, who, now); err != nil {
				return nil, err
			}
		}
	}
	return s.byID[id], nil
}

// depJSON is a dependency as bd writes it.
type depJSON struct {
	IssueID     string `json:"issue_id"`
	DependsOnID string `json:"depends_on_id"`
	Type        string `json:"type"`
	CreatedAt   string `json:"created_at"`
	CreatedBy   string `json:"created_by,omitempty"`
}

func newDep(from, to, typ string, who Actor, now time.Time) depJSON {
	return depJSON{IssueID: from, DependsOnID: to, Type: typ, CreatedAt: now.UTC().Format(time.RFC3339), CreatedBy: who.Name}
}

func cleanLabels(labels []string) []string {
	var out []string
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// Changes is what update sets; nil fields are left alone.
type Changes struct {
	Status, Title, Description, Notes, AppendNotes, Design, Assignee *string
	Priority                                                         *int
	AddLabels, RemoveLabels                                          []string
	Defer                                                            *time.Time // zero time clears
}

// Update applies c to the issue id.
func (s *Store) Update(id string, c Changes, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if err := gateChanges(c); err != nil {
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
	if len(c.AddLabels)+len(c.RemoveLabels) > 0 {
		labels := slices.DeleteFunc(slices.Clone(iss.Labels), func(l string) bool { return slices.Contains(c.RemoveLabels, l) })
		labels = cleanLabels(append(labels, c.AddLabels...))
		if len(labels) == 0 {
			r.del("labels")
		} else {
			r.set("labels", labels)
		}
	}
	if c.Defer != nil {
		r.setTime("defer_until", *c.Defer)
	}
	return s.touch(r, now)
}

// gateChanges passes the text an update sets through the write gate.
func gateChanges(c Changes) error {
	var fields []secrets.Field
	add := func(f func(string, string) secrets.Field, name string, v *string) {
		if v != nil {
			fields = append(fields, f(name, *v))
		}
	}
	add(oneLineField, "title", c.Title)
	add(textField, "description", c.Description)
	add(textField, "design", c.Design)
	add(textField, "notes", c.Notes)
	add(textField, "append_notes", c.AppendNotes)
	add(oneLineField, "assignee", c.Assignee)
	add(oneLineField, "status", c.Status)
	fields = append(fields, labelFields("labels", c.AddLabels)...)
	return gate(fields...)
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

// Close closes id with a reason. Closing a closed issue succeeds and
// changes nothing, as in bd ≥ 1.0.5.
func (s *Store) Close(id, reason string, now time.Time) (*Issue, error) {
	iss, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if iss.Status == StatusClosed {
		return iss, nil
	}
	if err := gate(textField("close_reason", reason)); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	if err := s.setStatus(r, iss, StatusClosed, now); err != nil {
		return nil, err
	}
	r.setString("close_reason", reason)
	return s.touch(r, now)
}

// Reopen sets a closed issue open again.
func (s *Store) Reopen(id string, now time.Time) (*Issue, error) {
	st := StatusOpen
	return s.Update(id, Changes{Status: &st}, now)
}

// AddDep records that from depends on to with type typ. Blocking edges
// that would close a cycle are refused with a *CycleError.
func (s *Store) AddDep(from, to, typ string, who Actor, now time.Time) error {
	if !ValidDepType(typ) {
		return &ValidationError{Field: "type", Message: fmt.Sprintf("unknown dependency type %q", typ)}
	}
	if from == to {
		return &ValidationError{Field: "depends_on_id", Message: "an issue cannot depend on itself"}
	}
	if err := gate(oneLineField("depends_on_id", to), oneLineField("created_by", who.Name)); err != nil {
		return err
	}
	iss, err := s.Get(from)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(to, "external:") {
		if _, err := s.peek(to); err != nil {
			return err
		}
	}
	for _, d := range iss.Deps {
		if d.DependsOnID == to {
			if d.Type == typ {
				return nil
			}
			return &ValidationError{Field: "type", Message: fmt.Sprintf("%s already depends on %s with type %q; remove it first", from, to, d.Type)}
		}
	}
	if isBlocking(typ) {
		if path := s.pathBetween(to, from); path != nil {
			return &CycleError{Path: append([]string{from}, path...)}
		}
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	deps := rawDeps(r)
	edge, _ := json.Marshal(newDep(from, to, typ, who, now))
	r.setRaw("dependencies", appendRaw(deps, edge))
	_, err = s.touch(r, now)
	return err
}

// RemoveDep deletes the edge from → to.
func (s *Store) RemoveDep(from, to string, now time.Time) error {
	iss, err := s.Get(from)
	if err != nil {
		return err
	}
	r := iss.rec
	d := decoder{line: r.Line}
	els := d.elements(field{key: "dependencies", raw: r.get("dependencies")})
	var kept [][]byte
	found := false
	for i, e := range els {
		if i < len(iss.Deps) && iss.Deps[i].DependsOnID == to {
			found = true
			continue
		}
		kept = append(kept, e)
	}
	if !found {
		return &NotFoundError{ID: from + " → " + to}
	}
	if len(kept) == 0 {
		r.del("dependencies")
	} else {
		r.setRaw("dependencies", joinRaw(kept))
	}
	_, err = s.touch(r, now.UTC().Truncate(time.Second))
	return err
}

func isBlocking(typ string) bool {
	return typ == DepBlocks || typ == DepParentChild || typ == DepConditionalBlocks
}

// pathBetween returns a path of blocking edges from a to b, or nil.
func (s *Store) pathBetween(a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == b {
			var path []string
			for n := b; n != ""; n = prev[n] {
				path = append([]string{n}, path...)
			}
			return path
		}
		iss, ok := s.byID[cur]
		if !ok {
			continue
		}
		for _, d := range iss.Deps {
			if _, seen := prev[d.DependsOnID]; !seen && isBlocking(d.Type) {
				prev[d.DependsOnID] = cur
				queue = append(queue, d.DependsOnID)
			}
		}
	}
	return nil
}

func rawDeps(r *Record) [][]byte {
	d := decoder{line: r.Line}
	return d.elements(field{key: "dependencies", raw: r.get("dependencies")})
}

func appendRaw(els [][]byte, el []byte) []byte { return joinRaw(append(els, el)) }

func joinRaw(els [][]byte) []byte {
	out := []byte{'['}
	for i, e := range els {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// nextCommentID returns the id style of the file's comments. bd before
// 1.0 numbered comments with integers from one counter per database, and
// bd 0.49.6 rejects the whole file when a comment id is a string; bd ≥ 1.0
// reads either and writes UUID strings. So a file with any integer comment
// id gets the largest one plus one (numeric); any other file, UUIDs.
func (s *Store) nextCommentID() (next int64, numeric bool) {
	for _, r := range s.Records {
		if r.Issue == nil || r.Issue.Comments == 0 {
			continue
		}
		d := decoder{line: r.Line}
		for _, e := range d.elements(field{key: "comments", raw: r.get("comments")}) {
			fs, _, err := scanObject(e)
			if err != nil {
				continue
			}
			for _, f := range fs {
				if f.key != "id" {
					continue
				}
				if n, err := strconv.ParseInt(string(f.raw), 10, 64); err == nil {
					numeric = true
					next = max(next, n)
				}
			}
		}
	}
	if !numeric {
		return 0, false
	}
	return next + 1, true
}

// Comment is one comment on an issue.
type Comment struct {
	ID        string
	IssueID   string
	Author    string
	Text      string
	CreatedAt time.Time
}

// Comments decodes the comments of iss. Comment ids may be numbers (bd
// before 1.0) or strings.
func (s *Store) Comments(iss *Issue) []Comment {
	d := decoder{line: iss.rec.Line}
	var out []Comment
	for _, e := range d.elements(field{key: "comments", raw: iss.rec.get("comments")}) {
		fs, _, err := scanObject(e)
		if err != nil {
			continue
		}
		var c Comment
		for _, f := range fs {
			switch f.key {
			case "id":
				if v, ok := rawString(f.raw); ok {
					c.ID = v
				} else {
					c.ID = string(f.raw)
				}
			case "issue_id":
				c.IssueID, _ = rawString(f.raw)
			case "author":
				c.Author, _ = rawString(f.raw)
			case "text":
				c.Text, _ = rawString(f.raw)
			case "created_at":
				c.CreatedAt = d.time(f)
			}
		}
		out = append(out, c)
	}
	return out
}

// AddComment appends a comment whose id follows the file (see
// nextCommentID): the next integer in a file of bd 0.x integer ids, else
// a random UUID read from rand (bd ≥ 1.0).
func (s *Store) AddComment(id, author, text string, rand io.Reader, now time.Time) (Comment, error) {
	iss, err := s.Get(id)
	if err != nil {
		return Comment{}, err
	}
	if strings.TrimSpace(text) == "" {
		return Comment{}, &ValidationError{Field: "text", Message: "must not be empty"}
	}
	if err := gate(oneLineField("author", author), textField("comment", text)); err != nil {
		return Comment{}, err
	}
	var cid string
	var rawID []byte // the id as the file holds it: a number or a string
	if next, numeric := s.nextCommentID(); numeric {
		cid = strconv.FormatInt(next, 10)
		rawID = []byte(cid)
	} else {
		var u [16]byte
		if _, err := io.ReadFull(rand, u[:]); err != nil {
			return Comment{}, err
		}
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		cid = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
		rawID, _ = json.Marshal(cid)
	}
	now = now.UTC().Truncate(time.Second)
	c := Comment{ID: cid, IssueID: id, Author: author, Text: text, CreatedAt: now}
	raw, _ := json.Marshal(struct {
		ID        json.RawMessage `json:"id"`
		IssueID   string          `json:"issue_id"`
		Author    string          `json:"author"`
		Text      string          `json:"text"`
		CreatedAt string          `json:"created_at"`
	}{rawID, id, author, text, now.Format(time.RFC3339)})
	r := iss.rec
	d := decoder{line: r.Line}
	r.setRaw("comments", appendRaw(d.elements(field{key: "comments", raw: r.get("comments")}), raw))
	_, err = s.touch(r, now)
	return c, err
}
