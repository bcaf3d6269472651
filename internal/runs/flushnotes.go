package runs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/tasks"
)

// What a progress note names: at most maxNoteNames files or tests, a
// check command of at most maxNoteCheck characters.
const (
	maxNoteNames = 3
	maxNoteCheck = 60
)

// ProgressNote is the one-line note a flush leaves on the tasks the actor
// has in progress: the date, the run id (which finds the record and,
// on the next flush, this line) and what the run has done so far:
// "2026-11-23 run r-917866ce65: edited parse.go, parse_test.go; go test
// ./... passed". A failing last check names its exit code and the tests
// still failing. It is "" when the run has done nothing yet: no note is
// left then.
func ProgressNote(r *Record, now time.Time) string {
	var parts []string
	if len(r.FilesChanged) > 0 {
		parts = append(parts, "edited "+names(r.FilesChanged, func(f string) string { return f[strings.LastIndex(f, "/")+1:] }))
	}
	for i := len(r.Commands) - 1; i >= 0; i-- {
		c := r.Commands[i]
		cmd := checkPart(c.Cmd)
		if c.ExitCode < 0 || cmd == "" {
			continue
		}
		if len(cmd) > maxNoteCheck {
			cmd = Cut(cmd, maxNoteCheck-1) + "…"
		}
		if c.ExitCode == 0 {
			parts = append(parts, cmd+" passed")
		} else {
			parts = append(parts, fmt.Sprintf("%s failed (exit %d)", cmd, c.ExitCode))
		}
		break
	}
	// Under success, a test that failed did so before the last check passed.
	if failing := r.FailedTests(); len(failing) > 0 && r.Status != StatusSuccess {
		parts = append(parts, "failing: "+names(failing, func(s string) string { return s }))
	}
	if len(parts) == 0 {
		return "" // a note that says nothing would hide the last one that did
	}
	return fmt.Sprintf("%s %s%s", now.UTC().Format("2006-01-02"), noteMarker(r.RunID), strings.Join(parts, "; "))
}

// noteMarker is what a run's progress note holds after its date, for the
// next flush to find it.
func noteMarker(runID string) string { return "run " + runID + ": " }

// names lists the first maxNoteNames items, shown by short, and how many
// more there are.
func names(items []string, short func(string) string) string {
	n := min(len(items), maxNoteNames)
	out := make([]string, 0, n)
	for _, it := range items[:n] {
		out = append(out, short(it))
	}
	s := strings.Join(out, ", ")
	if more := len(items) - n; more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// noteTasks is the task graph opened for progress notes, and the tasks
// that get one.
type noteTasks struct {
	req   *TaskNotes
	store *tasks.Store
	path  string
	ids   []string // in progress and assigned to the actor, in file order
}

// openNotes loads the task graph and finds the tasks the actor has in
// progress. It returns nil (and why, when it is not just that there is
// nothing to do) when no note can be written: the issues file is unmerged
// or unreadable, where a write could lose a side of a merge or a line.
func openNotes(req *TaskNotes) (*noteTasks, error) {
	if req == nil || req.Actor.Name == "" {
		return nil, nil
	}
	ws := req.Workspace
	if unmerged, err := ws.Repo.StoppedUnmerged(config.IssuesFile); err != nil || unmerged {
		if err == nil {
			err = fmt.Errorf("%s is unmerged", config.IssuesFile)
		}
		return nil, fmt.Errorf("progress notes not written: %w", err)
	}
	path := ws.Path(config.IssuesFile)
	s, err := tasks.LoadCached(path, req.Cache)
	if err != nil {
		return nil, fmt.Errorf("progress notes not written: %s: %w", config.IssuesFile, err)
	}
	n := &noteTasks{req: req, store: s, path: path}
	for _, iss := range s.Issues() {
		if iss.Status == tasks.StatusInProgress && iss.Assignee == req.Actor.Name {
			n.ids = append(n.ids, iss.ID)
		}
	}
	if len(n.ids) == 0 {
		return nil, nil
	}
	return n, nil
}

// write brings each task's note of run id up to date with line: appended
// when the task has none, its line replaced when it says something else,
// left alone when it says line already. It saves the graph once, and
// returns the tasks it changed and what kept the others from a note.
func (n *noteTasks) write(id, line string, now time.Time) ([]string, error) {
	line, _, err := redact(n.req.Workspace.Config.Secrets.Policy, line, true)
	if err != nil {
		return nil, fmt.Errorf("progress note: %w", err)
	}
	marker := noteMarker(id)
	var (
		changed []string
		errs    []error
	)
	for _, tid := range n.ids {
		iss, err := n.store.Get(tid)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines := strings.Split(iss.Notes, "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, marker) })
		var c tasks.Changes
		switch {
		case i < 0:
			c.AppendNotes = &line
		case lines[i] == line:
			continue
		default:
			lines[i] = line
			notes := strings.Join(lines, "\n")
			c.Notes = &notes
		}
		if _, err := n.store.Update(tid, c, now); err != nil {
			// Notes the gate refuses (a secret a person pasted there, say)
			// cost this task its note, not the others theirs.
			errs = append(errs, fmt.Errorf("progress note on %s: %w", tid, err))
			continue
		}
		changed = append(changed, tid)
	}
	if len(changed) > 0 {
		if err := n.store.Save(n.path); err != nil {
			return nil, errors.Join(append(errs, fmt.Errorf("progress notes: %w", err))...)
		}
	}
	return changed, errors.Join(errs...)
}
