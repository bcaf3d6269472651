package tasks

import "time"

// Stats counts a store's issues by state, as bd stats does.
type Stats struct {
	Total, Open, InProgress, Closed, Deferred, Pinned int
	// Blocked issues have an open blocker; Ready ones can start now.
	Blocked, Ready int
}

// Count returns the Stats of the issues in s at now (deferrals end by
// the clock).
func Count(s *Store, now time.Time) Stats {
	var st Stats
	for _, iss := range s.Issues() {
		st.Total++
		switch iss.Status {
		case StatusOpen:
			st.Open++
		case StatusInProgress:
			st.InProgress++
		case StatusClosed:
			st.Closed++
		case StatusDeferred:
			st.Deferred++
		case StatusPinned:
			st.Pinned++
		}
	}
	g := NewGraph(s)
	st.Blocked = len(g.Blocked())
	_, st.Ready = g.Ready(ReadyFilter{Limit: 1}, now)
	return st
}
