package tasks

import "time"

// Stats counts a store's issues by state, as bd stats does.
type Stats struct {
	Total, Open, InProgress, Closed, Deferred, Pinned int
	// Blocked issues have an open blocker; Ready ones can start now.
	Blocked, Ready int
	// EpicsEligibleForClosure are epics not closed whose children, at
	// least one, are all closed.
	EpicsEligibleForClosure int
	// AverageLeadTimeHours is the mean time from created_at to closed_at
	// of the closed issues, in hours; 0 when none is closed.
	AverageLeadTimeHours float64
}

// Count returns the Stats of the issues in s at now (deferrals end by
// the clock).
func Count(s *Store, now time.Time) Stats {
	var st Stats
	g := NewGraph(s)
	var lead time.Duration
	timed := 0
	s.scan(func(iss *Issue) {
		st.Total++
		switch iss.Status {
		case StatusOpen:
			st.Open++
		case StatusInProgress:
			st.InProgress++
		case StatusClosed:
			st.Closed++
			if !iss.ClosedAt.IsZero() && !iss.CreatedAt.IsZero() {
				lead += iss.ClosedAt.Sub(iss.CreatedAt)
				timed++
			}
		case StatusDeferred:
			st.Deferred++
		case StatusPinned:
			st.Pinned++
		}
		if iss.IssueType == "epic" && iss.Status != StatusClosed && g.epicDone(iss) {
			st.EpicsEligibleForClosure++
		}
	})
	if timed > 0 {
		st.AverageLeadTimeHours = lead.Hours() / float64(timed)
	}
	st.Blocked = g.countBlocked()
	_, st.Ready = g.Ready(ReadyFilter{Limit: 1}, now)
	return st
}
