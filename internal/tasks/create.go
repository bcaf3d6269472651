package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

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
	// DeferUntil hides the issue from ready until then and makes it
	// deferred, as bd create --defer does; DueAt is its due date.
	DeferUntil, DueAt time.Time
	// EstimatedMinutes, when set, is the time estimate (≥ 0).
	EstimatedMinutes *int
	ExternalRef      string
	// Metadata is custom JSON (bd's metadata field); nil for none.
	Metadata []byte
	// ID is an explicit id instead of a generated one. It must carry the
	// prefix unless ForcePrefix, and no record may have it.
	ID          string
	ForcePrefix bool
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
	n.Labels, n.Deps = slices.Clone(n.Labels), slices.Clone(n.Deps) // redact mode writes into them
	fields := []text{oneLineField("title", &n.Title), textField("description", &n.Description), textField("design", &n.Design),
		textField("acceptance_criteria", &n.Acceptance), textField("notes", &n.Notes), oneLineField("assignee", &n.Assignee), oneLineField("parent", &n.Parent),
		oneLineField("created_by", &who.Name), oneLineField("owner", &who.Email), oneLineField("external_ref", &n.ExternalRef), oneLineField("id", &n.ID)}
	fields = append(fields, labelFields("labels", n.Labels)...)
	for i := range n.Deps {
		fields = append(fields, oneLineField("deps", &n.Deps[i].ID))
	}
	if err := s.gate(fields...); err != nil {
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
	if n.EstimatedMinutes != nil && *n.EstimatedMinutes < 0 {
		return nil, &ValidationError{Field: "estimated_minutes", Message: fmt.Sprintf("%d is negative; give minutes ≥ 0", *n.EstimatedMinutes)}
	}
	if n.Metadata != nil && !json.Valid(n.Metadata) {
		return nil, &ValidationError{Field: "metadata", Message: "is not valid JSON"}
	}
	now = now.UTC().Truncate(time.Second)
	var id string
	var err error
	switch {
	case n.ID != "":
		if err := s.checkExplicitID(n.ID, prefix, n.ForcePrefix); err != nil {
			return nil, err
		}
		id = n.ID
	case parent != nil:
		id, err = s.childID(parent.ID)
	default:
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
	if n.DeferUntil.IsZero() {
		r.set("status", StatusOpen)
	} else {
		r.set("status", StatusDeferred)
	}
	r.set("priority", n.Priority)
	r.set("issue_type", typ)
	r.setString("assignee", n.Assignee)
	r.setString("owner", who.Email)
	if n.EstimatedMinutes != nil {
		r.set("estimated_minutes", *n.EstimatedMinutes)
	}
	r.setTime("created_at", now)
	r.setString("created_by", who.Name)
	r.setTime("updated_at", now)
	r.setTime("due_at", n.DueAt)
	r.setTime("defer_until", n.DeferUntil)
	r.setString("external_ref", n.ExternalRef)
	if n.Metadata != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, n.Metadata); err != nil {
			return nil, &ValidationError{Field: "metadata", Message: "is not valid JSON"}
		}
		r.setRaw("metadata", b.Bytes())
	}
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
	return s.lookup(id), nil
}

// checkExplicitID vets an id create was given: a well-formed bd id with
// the workspace's prefix (unless force, as bd create --force), that no
// record has, tombstones included.
func (s *Store) checkExplicitID(id, prefix string, force bool) error {
	base, _, _ := strings.Cut(id, ".")
	i := strings.LastIndexByte(base, '-')
	if i <= 0 || i == len(base)-1 || strings.ContainsAny(id, " \t\"/") {
		return &ValidationError{Field: "id", Message: fmt.Sprintf("%q is not an issue id; use <prefix>-<suffix>, such as %s-42", id, prefix)}
	}
	if !force && base[:i] != prefix {
		return &ValidationError{Field: "id", Message: fmt.Sprintf("%q does not have this workspace's prefix %q; add --force to create it anyway", id, prefix)}
	}
	if s.exists(id) {
		return &ValidationError{Field: "id", Message: fmt.Sprintf("%q already exists; choose another id", id)}
	}
	return nil
}

// depJSON is a dependency as bd writes it.
type depJSON struct {
	IssueID     string `json:"issue_id"`
	DependsOnID string `json:"depends_on_id"`
	Type        string `json:"type"`
	CreatedAt   string `json:"created_at"`
	CreatedBy   string `json:"created_by,omitempty"`
	Metadata    string `json:"metadata"`
}

// newDep is a new edge as bd 1.0.5 writes it: with "metadata":"{}" (bd
// 0.49.6 reads the key too).
func newDep(from, to, typ string, who Actor, now time.Time) depJSON {
	return depJSON{IssueID: from, DependsOnID: to, Type: typ, CreatedAt: now.UTC().Format(time.RFC3339), CreatedBy: who.Name, Metadata: "{}"}
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
