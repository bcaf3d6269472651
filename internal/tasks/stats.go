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
	count := func(status string, created, closed time.Time) {
		st.Total++
		switch status {
		case StatusOpen:
			st.Open++
		case StatusInProgress:
			st.InProgress++
		case StatusClosed:
			st.Closed++
			if !closed.IsZero() && !created.IsZero() {
				lead += closed.Sub(created)
				timed++
			}
		case StatusDeferred:
			st.Deferred++
		case StatusPinned:
			st.Pinned++
		}
	}
	openEpic := func(iss *Issue) {
		if g.epicDone(iss) {
			st.EpicsEligibleForClosure++
		}
	}
	if g.view != nil {
		// Over the cache: counted from the entries; only open epics are
		// read, for their children.
		s.scanWhere(func(v *cacheView, k int) bool {
			e := v.entry(k)
			if Kind(e[eKind]) != KindIssue {
				return false
			}
			status := v.str(e[eStatus:])
			count(status, getTime(e, eCreated), getTime(e, eClosed))
			return status != StatusClosed && v.str(e[eType:]) == "epic"
		}, openEpic)
	} else {
		s.scan(func(iss *Issue) {
			count(iss.Status, iss.CreatedAt, iss.ClosedAt)
			if iss.IssueType == "epic" && iss.Status != StatusClosed {
				openEpic(iss)
			}
		})
	}
	if timed > 0 {
		st.AverageLeadTimeHours = lead.Hours() / float64(timed)
	}
	st.Blocked = g.countBlocked()
	_, st.Ready = g.Ready(ReadyFilter{Limit: 1}, now)
	return st
}
