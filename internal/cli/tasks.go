package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/tasks"
)

// save writes the graph back, then says what the write gate redacted
// (redact mode) in the writes it saved.
func (t *taskSession) save() error {
	if err := (&app.TaskSession{WS: t.ws, Store: t.store, Path: t.path}).Save(); err != nil {
		return err
	}
	if t.env != nil {
		t.env.reportRedactions(t.store.Redactions)
	}
	t.store.Redactions = nil
	return nil
}

// parsePriority reads 0–4 or P0–P4.
func parsePriority(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(s, "P"), "p"))
	if err != nil || n < 0 || n > 4 {
		return 0, usagef(fmt.Errorf("priority %q: use 0–4 or P0–P4 (0 is critical)", s))
	}
	return n, nil
}

// taskError adds hints to task errors (app.TaskError).
func taskError(err error) error { return app.TaskError(err) }

// --- bd's JSON shapes (app.Object) ------------------------------------

// object is a JSON object with a fixed field order: app.Object, with the
// cli's method names.
type object app.Object

func (o object) MarshalJSON() ([]byte, error) { return app.Object(o).MarshalJSON() }

func (o object) with(key string, v any) object { return object(app.Object(o).With(key, v)) }

func plainObject(iss *tasks.Issue) object { return object(app.PlainObject(iss)) }

func createObject(iss *tasks.Issue) object { return object(app.CreateObject(iss)) }

// writeIssueList renders a list of issues: bd's JSON array of list
// objects, or the table; with no issues, the table is replaced by empty
// on stderr.
func writeIssueList(env *Env, g *tasks.Graph, issues []*tasks.Issue, asJSON bool, empty string) error {
	if asJSON {
		a := newJSONArray(env.Out)
		var o app.Object
		for _, iss := range issues {
			o = app.AppendListObject(o[:0], g, iss)
			a.add(object(o))
		}
		return a.close()
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
