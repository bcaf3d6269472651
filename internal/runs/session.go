package runs

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Context is what the workspace knows about a run being recorded: the
// repository, branch and commit from git, and the time of the command.
type Context struct {
	Now                     time.Time
	Repo, Branch, CommitSHA string
	// Actor is who runs memctl (the record's actor when it names none).
	Actor string
}

// Fill sets what r leaves empty from c: repository, branch and commit;
// and, when c.Now is set, started_at and ended_at (a merge keeps the
// earliest start and the latest end, so recording again moves only the
// end).
func (r *Record) Fill(c Context) {
	r.Repo = scalar(c.Repo, r.Repo)
	r.Branch = scalar(c.Branch, r.Branch)
	r.Actor = scalar(c.Actor, r.Actor)
	r.CommitSHA = scalar(c.CommitSHA, r.CommitSHA)
	if !c.Now.IsZero() {
		if r.StartedAt.IsZero() {
			r.StartedAt = c.Now.UTC()
		}
		if r.EndedAt.IsZero() {
			r.EndedAt = c.Now.UTC()
		}
	}
}

// AmbiguousError is a session id that several run records carry (the
// same id under different runtimes), none of them the given runtime's.
type AmbiguousError struct {
	SessionID string
	RunIDs    []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session %q has %d run records: %s", e.SessionID, len(e.RunIDs), strings.Join(e.RunIDs, ", "))
}

// SessionRun is the run id of session sessionID: the record that carries
// that session id, whatever its runtime (so a digest finds the record a
// hook's flush wrote); when several do, the one of runtime; when none
// does, the id a flush of runtime would give it (SessionRunID). found
// says whether a record exists.
func (s Store) SessionRun(runtime, sessionID string) (id string, found bool, err error) {
	l, err := s.List(Filter{})
	if err != nil {
		return "", false, err
	}
	var ids []string
	for _, e := range l.Entries {
		if e.Record.SessionID == sessionID {
			ids = append(ids, e.Record.RunID)
		}
	}
	derived := SessionRunID(runtime, sessionID)
	switch {
	case len(ids) == 0:
		// A record that cannot be read may be this session's: writing
		// beside it would split the session in two.
		if _, err := s.Find(derived); err == nil {
			return derived, true, nil
		}
		return derived, false, nil
	case len(ids) == 1:
		return ids[0], true, nil
	case slices.Contains(ids, derived):
		return derived, true, nil
	}
	slices.Sort(ids)
	return "", false, &AmbiguousError{SessionID: sessionID, RunIDs: ids}
}
