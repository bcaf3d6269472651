package runs

import (
	"slices"
	"time"
)

// Merge is what recording new over an existing record old leaves: lists
// are unioned, old's items first and then new's items old lacks (tests by
// name, the newer status winning; commands by command and exit code;
// errors by signature, file and line, and by their excerpt too when
// they have no signature; strings by value); a non-empty new
// scalar wins, except that a new "unknown" status never replaces a known
// one; started_at keeps the earlier time, ended_at the later; unknown
// keys are unioned, new's value winning. Neither argument is changed.
func Merge(old, new *Record) *Record {
	m := &Record{
		SchemaVersion: SchemaVersion,
		RunID:         scalar(old.RunID, new.RunID),
		SessionID:     scalar(old.SessionID, new.SessionID),
		Actor:         scalar(old.Actor, new.Actor),
		TaskIDs:       unionStrings(old.TaskIDs, new.TaskIDs),
		Agent: Agent{
			Runtime: scalar(old.Agent.Runtime, new.Agent.Runtime),
			Model:   scalar(old.Agent.Model, new.Agent.Model),
			extra:   old.Agent.extra.union(new.Agent.extra),
		},
		Repo:      scalar(old.Repo, new.Repo),
		Branch:    scalar(old.Branch, new.Branch),
		CommitSHA: scalar(old.CommitSHA, new.CommitSHA),
		StartedAt: earlier(old.StartedAt, new.StartedAt),
		EndedAt:   later(old.EndedAt, new.EndedAt),
		Status:    old.Status,
		Digest: Digest{
			Intent:    scalar(old.Digest.Intent, new.Digest.Intent),
			Result:    scalar(old.Digest.Result, new.Digest.Result),
			Changes:   unionStrings(old.Digest.Changes, new.Digest.Changes),
			Decisions: unionStrings(old.Digest.Decisions, new.Digest.Decisions),
			Gotchas:   unionStrings(old.Digest.Gotchas, new.Digest.Gotchas),
			NextSteps: unionStrings(old.Digest.NextSteps, new.Digest.NextSteps),
			extra:     old.Digest.extra.union(new.Digest.extra),
		},
		FilesChanged: unionStrings(old.FilesChanged, new.FilesChanged),
		Commands: union(old.Commands, new.Commands, func(a, b Command) bool {
			return a.Cmd == b.Cmd && a.ExitCode == b.ExitCode
		}),
		Errors: union(old.Errors, new.Errors, func(a, b Error) bool {
			// Without a signature only the text tells two errors apart.
			return a.Signature == b.Signature && a.File == b.File && a.Line == b.Line &&
				(a.Signature != "" || a.Excerpt == b.Excerpt)
		}),
		ArtifactRefs: unionStrings(old.ArtifactRefs, new.ArtifactRefs),
		extra:        old.extra.union(new.extra),
	}
	if new.Status != "" && (new.Status != StatusUnknown || old.Status == "") {
		m.Status = new.Status
	}
	m.Tests = slices.Clone(old.Tests)
	for _, t := range new.Tests {
		if i := slices.IndexFunc(m.Tests, func(o Test) bool { return o.Name == t.Name }); i >= 0 {
			m.Tests[i].Status = t.Status
			m.Tests[i].extra = m.Tests[i].extra.union(t.extra)
			continue
		}
		m.Tests = append(m.Tests, t)
	}
	return m
}

func scalar(old, new string) string {
	if new != "" {
		return new
	}
	return old
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if a.IsZero() || b.After(a) {
		return b
	}
	return a
}

func unionStrings(old, new []string) []string {
	return union(old, new, func(a, b string) bool { return a == b })
}

// union is old followed by the items of new that are not in old (nor
// earlier in new), by same.
func union[T any](old, new []T, same func(a, b T) bool) []T {
	out := slices.Clone(old)
	for _, n := range new {
		if !slices.ContainsFunc(out, func(o T) bool { return same(o, n) }) {
			out = append(out, n)
		}
	}
	return out
}
