package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/tasks"
)

func (t *taskSession) save() error { return t.store.Save(t.path) }

// parsePriority reads 0–4 or P0–P4.
func parsePriority(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(s, "P"), "p"))
	if err != nil || n < 0 || n > 4 {
		return 0, usagef(fmt.Errorf("priority %q: use 0–4 or P0–P4 (0 is critical)", s))
	}
	return n, nil
}

// taskError adds hints to task errors.
func taskError(err error) error {
	var (
		nf    *tasks.NotFoundError
		claim *tasks.ClaimError
		cyc   *tasks.CycleError
		val   *tasks.ValidationError
	)
	switch {
	case errors.As(err, &nf):
		return withHint(&notFoundError{err}, `run "memctl list --all" to see issue ids`)
	case errors.As(err, &claim):
		return withHint(err, "pick another issue (memctl ready --unassigned), or ask "+claim.Holder+" to hand it over")
	case errors.As(err, &cyc):
		return withHint(err, "remove one of the edges on that path first (memctl dep remove)")
	case errors.As(err, &val):
		return usagef(err)
	}
	return err
}

// --- bd's JSON shapes ---------------------------------------------------

// object is a JSON object with a fixed field order.
type object []member

type member struct {
	key string
	raw json.RawMessage
}

func (o object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		b = append(append(b, k...), ':')
		b = append(b, m.raw...)
	}
	return append(b, '}'), nil
}

func (o object) with(key string, v any) object {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte("null")
	}
	return append(o, member{key, raw})
}

// derivedKeys are bd export artifacts that memctl recomputes.
var derivedKeys = []string{"_type", "dependency_count", "dependent_count", "comment_count"}

// issueObject is the issue's stored fields in bd's order, without the
// given keys and without derived counts.
func issueObject(iss *tasks.Issue, without ...string) object {
	var o object
	iss.Record().Fields(func(key string, raw []byte) {
		if !slices.Contains(derivedKeys, key) && !slices.Contains(without, key) {
			o = append(o, member{key, raw})
		}
	})
	return o
}

// listObject is bd's IssueWithCounts, as ready and list print it.
func listObject(g *tasks.Graph, iss *tasks.Issue) object {
	o := issueObject(iss, "comments")
	if p := g.Parent(iss); p != nil {
		o = o.with("parent", p.ID)
	}
	out, in := g.BlocksCounts(iss)
	return o.with("dependency_count", out).with("dependent_count", in).with("comment_count", iss.Comments)
}

// plainObject is bd's Issue, as update and close print it.
func plainObject(iss *tasks.Issue) object { return issueObject(iss, "comments") }

// showObject is bd's IssueDetails.
func showObject(g *tasks.Graph, iss *tasks.Issue, s *tasks.Store) object {
	o := issueObject(iss, "dependencies", "comments")
	if len(iss.Deps) > 0 {
		deps := make([]object, 0, len(iss.Deps))
		for _, d := range iss.Deps {
			t, err := s.Get(d.DependsOnID)
			if err != nil {
				deps = append(deps, object{}.with("id", d.DependsOnID).with("dependency_type", d.Type))
				continue
			}
			deps = append(deps, issueObject(t, "dependencies", "comments").with("dependency_type", d.Type))
		}
		o = o.with("dependencies", deps)
	}
	if p := g.Parent(iss); p != nil {
		o = o.with("parent", p.ID)
	}
	out, in := g.AllCounts(iss)
	return o.with("dependent_count", in).with("dependency_count", out).with("comment_count", iss.Comments)
}

// createObject is bd's create output: the issue's fields sorted by key,
// with schema_version.
func createObject(iss *tasks.Issue) object {
	o := issueObject(iss).with("schema_version", schemaVersion)
	slices.SortFunc(o, func(a, b member) int { return strings.Compare(a.key, b.key) })
	return o
}

// writeIssueList renders a list of issues: bd's JSON array of list
// objects, or the table; with no issues, the table is replaced by empty
// on stderr.
func writeIssueList(env *Env, g *tasks.Graph, issues []*tasks.Issue, asJSON bool, empty string) error {
	if asJSON {
		out := make([]object, 0, len(issues))
		for _, iss := range issues {
			out = append(out, listObject(g, iss))
		}
		return writeJSON(env.Out, out)
	}
	if len(issues) == 0 {
		env.notef("%s", empty)
		return nil
	}
	return writeIssueTable(env, issues)
}

// writeIssueTable prints issues for a person.
func writeIssueTable(env *Env, issues []*tasks.Issue) error {
	t := newTable(env, "ID", "PRI", "STATUS", "TYPE", "ASSIGNEE", "TITLE").clipToWidth()
	for _, iss := range issues {
		t.row(iss.ID, "P"+strconv.Itoa(iss.Priority), iss.Status, iss.IssueType, dash(iss.Assignee), iss.Title)
	}
	return t.flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// batch runs fn for every id, going on past failures as bd does, and
// returns a *batchError listing each id that failed, or nil.
func batch(ids []string, fn func(id string) error) error {
	b := &batchError{total: len(ids)}
	for _, id := range ids {
		if err := fn(id); err != nil {
			b.failed = append(b.failed, itemError{id: id, err: taskError(err)})
		}
	}
	if len(b.failed) == 0 {
		return nil
	}
	return b
}

// batchError is the failure of some of the ids a batch command (close,
// reopen, update, show) was given. It unwraps to the first failure, so
// the exit code and the hint are the first failure's.
type batchError struct {
	total  int
	failed []itemError
}

type itemError struct {
	id  string
	err error
}

func (e *batchError) Error() string {
	first := e.failed[0].err.Error()
	if e.total == 1 {
		return first
	}
	return fmt.Sprintf("%d of %d ids failed; first %s: %s", len(e.failed), e.total, e.failed[0].id, first)
}

func (e *batchError) Unwrap() error { return e.failed[0].err }
