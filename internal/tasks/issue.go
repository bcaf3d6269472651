package tasks

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// Statuses (Beads' built-in set, plus tombstone from the SQLite era).
const (
	StatusOpen       = "open"
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusDeferred   = "deferred"
	StatusClosed     = "closed"
	StatusPinned     = "pinned"
	StatusHooked     = "hooked"
	StatusTombstone  = "tombstone"
)

// Dependency types that affect readiness.
const (
	DepBlocks            = "blocks"
	DepParentChild       = "parent-child"
	DepConditionalBlocks = "conditional-blocks"
	DepWaitsFor          = "waits-for"
	DepRelated           = "related"
	DepDiscoveredFrom    = "discovered-from"
)

// builtinStatuses are the statuses bd v1.0.5 knows.
var builtinStatuses = []string{StatusOpen, StatusInProgress, StatusBlocked, StatusDeferred, StatusClosed, StatusPinned, StatusHooked}

// builtinTypes are bd's issue types, including the internal ones its
// exports may carry.
var builtinTypes = []string{"bug", "feature", "task", "epic", "chore", "decision", "message", "molecule",
	"gate", "spike", "story", "milestone", "event", "merge-request", "agent", "role", "rig", "convoy", "slot"}

// typeAliases are the spellings bd normalises.
var typeAliases = map[string]string{
	"enhancement": "feature", "feat": "feature", "dec": "decision", "adr": "decision",
	"investigation": "spike", "timebox": "spike", "user-story": "story", "user_story": "story", "ms": "milestone",
}

// depTypes are the dependency types `create --deps` and `dep add` accept.
var depTypes = []string{DepBlocks, DepParentChild, DepConditionalBlocks, DepWaitsFor, DepRelated, DepDiscoveredFrom,
	"replies-to", "relates-to", "duplicates", "supersedes", "authored-by", "assigned-to", "approved-by", "attests",
	"tracks", "until", "caused-by", "validates", "delegated-from"}

// Issue is the typed view of an issue record: the fields memctl reads.
// Everything else stays in the record's raw fields.
type Issue struct {
	ID, Title, Description, Design, AcceptanceCriteria, Notes  string
	Status, IssueType, Assignee, Owner, CreatedBy, CloseReason string
	Priority                                                   int
	CreatedAt, UpdatedAt, StartedAt, ClosedAt, DeferUntil      time.Time
	Pinned, Ephemeral                                          bool
	Labels                                                     []string
	Deps                                                       []Dep
	// Comments is the number of comments; Record.Comments decodes them.
	Comments int

	rec *Record
	idx int // position in the last Graph built over the store
	// partial: only the cached fields are set (the text fields are not);
	// Store.Get completes it.
	partial bool
	// transient: a read of record idx from the cache that Store.scan
	// reuses for the next record; never kept.
	transient bool
}

// Record returns the record behind the issue.
func (i *Issue) Record() *Record { return i.rec }

// Dep is one outgoing edge: Issue depends on DependsOn.
type Dep struct {
	IssueID, DependsOnID, Type string
	// Metadata is the edge's metadata JSON text ("" when absent).
	Metadata string
}

// decodeIssue builds the typed view of r and validates it as bd does.
func decodeIssue(r *Record) (*Issue, error) {
	r.load()
	iss := &Issue{rec: r, Status: StatusOpen, IssueType: "task"}
	d := decoder{line: r.Line}
	for _, f := range r.fields {
		switch f.key {
		case "id":
			iss.ID = d.str(f)
		case "title":
			iss.Title = d.str(f)
		case "description":
			iss.Description = d.str(f)
		case "design":
			iss.Design = d.str(f)
		case "acceptance_criteria":
			iss.AcceptanceCriteria = d.str(f)
		case "notes":
			iss.Notes = d.str(f)
		case "status":
			iss.Status = d.str(f)
		case "issue_type":
			iss.IssueType = d.str(f)
		case "assignee":
			iss.Assignee = d.str(f)
		case "owner":
			iss.Owner = d.str(f)
		case "created_by":
			iss.CreatedBy = d.str(f)
		case "close_reason":
			iss.CloseReason = d.str(f)
		case "priority":
			iss.Priority = d.int(f)
		case "created_at":
			iss.CreatedAt = d.time(f)
		case "updated_at":
			iss.UpdatedAt = d.time(f)
		case "started_at":
			iss.StartedAt = d.time(f)
		case "closed_at":
			iss.ClosedAt = d.time(f)
		case "defer_until":
			iss.DeferUntil = d.time(f)
		case "pinned":
			iss.Pinned = d.bool(f)
		case "ephemeral", "wisp":
			iss.Ephemeral = iss.Ephemeral || d.bool(f)
		case "labels":
			iss.Labels = d.strings(f)
		case "dependencies":
			iss.Deps = d.deps(f)
		case "comments":
			iss.Comments = d.count(f)
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	if iss.Status == StatusTombstone {
		if iss.ID == "" {
			return nil, &LineError{Line: r.Line, Field: "id", Message: "tombstone without an id"}
		}
		return iss, nil
	}
	if err := iss.validate(r.Line); err != nil {
		return nil, err
	}
	return iss, nil
}

// validate applies bd's rules (ValidateWithCustom) to a stored issue.
func (i *Issue) validate(line int) error {
	bad := func(field, format string, args ...any) error {
		return &LineError{Line: line, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	switch n := utf8.RuneCountInString(i.Title); {
	case i.ID == "":
		return bad("id", "missing or empty; every issue needs an id")
	case n == 0:
		return bad("title", "missing or empty; every issue needs a title")
	case len(i.Title) > 500:
		return bad("title", "%d bytes long; bd allows at most 500", len(i.Title))
	case i.Priority < 0 || i.Priority > 4:
		return bad("priority", "%d is out of range; use 0 (critical) to 4 (backlog)", i.Priority)
	case i.Status == StatusClosed && i.ClosedAt.IsZero():
		return bad("closed_at", "missing on a closed issue; bd requires closed_at exactly when status is closed")
	case i.Status != StatusClosed && !i.ClosedAt.IsZero():
		return bad("closed_at", "set on an issue with status %q; bd requires closed_at exactly when status is closed", i.Status)
	}
	return nil
}

// decoder reads typed values from raw fields, keeping the first error.
type decoder struct {
	line int
	err  error
}

func (d *decoder) fail(f field, want string) {
	if d.err == nil {
		d.err = &LineError{Line: d.line, Field: f.key, Message: fmt.Sprintf("is %s, want %s", describe(f.raw), want)}
	}
}

func (d *decoder) str(f field) string {
	if string(f.raw) == "null" {
		return ""
	}
	s, ok := rawString(f.raw)
	if !ok {
		d.fail(f, "a string")
	}
	return s
}

func (d *decoder) int(f field) int {
	n, ok := rawInt(f.raw)
	if !ok {
		d.fail(f, "an integer")
	}
	return n
}

func (d *decoder) bool(f field) bool {
	switch string(f.raw) {
	case "true":
		return true
	case "false", "null":
		return false
	}
	d.fail(f, "true or false")
	return false
}

func (d *decoder) time(f field) time.Time {
	if string(f.raw) == "null" {
		return time.Time{}
	}
	s, ok := rawString(f.raw)
	if !ok {
		d.fail(f, "an RFC 3339 timestamp")
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.fail(f, "an RFC 3339 timestamp")
	}
	return t
}

// elements splits a raw JSON array into its elements.
func (d *decoder) elements(f field) [][]byte {
	if !d.array(f) {
		return nil
	}
	var out [][]byte
	eachElement(f.raw, func(e []byte) { out = append(out, e) })
	return out
}

// array checks that f is an array (or null, which is treated as empty).
func (d *decoder) array(f field) bool {
	if len(f.raw) == 0 || string(f.raw) == "null" {
		return false
	}
	if f.raw[0] != '[' {
		d.fail(f, "an array")
		return false
	}
	return true
}

func (d *decoder) count(f field) int {
	n := 0
	if d.array(f) {
		eachElement(f.raw, func([]byte) { n++ })
	}
	return n
}

func (d *decoder) strings(f field) []string {
	if !d.array(f) {
		return nil
	}
	var out []string
	eachElement(f.raw, func(e []byte) {
		s, ok := rawString(e)
		if !ok {
			d.fail(f, "an array of strings")
			return
		}
		out = append(out, s)
	})
	return out
}

func (d *decoder) deps(f field) []Dep {
	if !d.array(f) {
		return nil
	}
	var out []Dep
	eachElement(f.raw, func(e []byte) {
		if len(e) == 0 || e[0] != '{' {
			d.fail(f, "an array of dependency objects")
			return
		}
		var dep Dep
		eachMember(e, func(key string, raw []byte) {
			switch key {
			case "issue_id":
				dep.IssueID = d.str(field{key: "dependencies.issue_id", raw: raw})
			case "depends_on_id":
				dep.DependsOnID = d.str(field{key: "dependencies.depends_on_id", raw: raw})
			case "type":
				dep.Type = d.str(field{key: "dependencies.type", raw: raw})
			case "metadata":
				if s, ok := rawString(raw); ok {
					dep.Metadata = s
				} else if string(raw) != "null" {
					dep.Metadata = string(raw) // an object, as some writers store it
				}
			}
		})
		if d.err == nil && (dep.DependsOnID == "" || dep.Type == "") {
			d.err = &LineError{Line: d.line, Field: "dependencies", Message: "an edge lacks depends_on_id or type"}
		}
		out = append(out, dep)
	})
	return out
}

// describe names the JSON type of raw for messages.
func describe(raw []byte) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
