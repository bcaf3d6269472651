package tasks

import "strconv"

// The derived counts bd 1.0.x writes into its JSONL exports
// (IssueWithCounts): outgoing and incoming "blocks" edges and comments.
const (
	keyDependencyCount = "dependency_count"
	keyDependentCount  = "dependent_count"
	keyCommentCount    = "comment_count"
)

// refreshCounts keeps the derived counts current in the records a write
// touches. A record that carries them (one bd exported) and was changed,
// or whose incoming "blocks" edges a changed record added or removed, gets
// them recomputed; a record without them is not given any, so a file that
// never had counts gets none and a file that had them never holds a stale
// one. Records nothing touched keep their lines.
func (s *Store) refreshCounts() {
	var touched []*Record
	affected := map[string]bool{}
	for _, r := range s.madeRecords() {
		if !r.dirty || r.Issue == nil {
			continue
		}
		touched = append(touched, r)
		for _, d := range r.Issue.Deps {
			if d.Type == DepBlocks {
				affected[d.DependsOnID] = true
			}
		}
		if r.raw != nil { // the edges it had before the change
			if old, err := decodeIssue(&Record{raw: r.raw, lazy: true, Line: r.Line}); err == nil {
				for _, d := range old.Deps {
					if d.Type == DepBlocks {
						affected[d.DependsOnID] = true
					}
				}
			}
		}
	}
	if len(touched) == 0 {
		return
	}
	for id := range affected {
		if iss := s.lookup(id); iss != nil && iss.rec != nil && !iss.rec.dirty {
			touched = append(touched, iss.rec)
		}
	}
	var dependents func(id string) int
	for _, r := range touched {
		if r.get(keyDependencyCount) == nil && r.get(keyDependentCount) == nil && r.get(keyCommentCount) == nil {
			continue
		}
		if dependents == nil {
			dependents = s.blocksDependentsOf()
		}
		iss := r.Issue
		out := 0
		for _, d := range iss.Deps {
			if d.Type == DepBlocks {
				out++
			}
		}
		setCount(r, keyDependencyCount, out)
		setCount(r, keyDependentCount, dependents(iss.ID))
		setCount(r, keyCommentCount, iss.Comments)
	}
}

// blocksDependentsOf returns a function counting the issues with a
// "blocks" edge to an id: from the cache while the store is read from it
// (its edges unchanged: Save reads every record first otherwise), else
// counted over every record.
func (s *Store) blocksDependentsOf() func(id string) int {
	if s.lz != nil {
		v, added := s.lz.v, s.lz.added
		return func(id string) int {
			n := 0
			if k := v.find(id); k >= 0 {
				b, _ := v.counts(k)
				n = int(b)
			}
			for _, r := range added { // edges the cache does not hold yet
				for _, d := range r.Issue.Deps {
					if d.Type == DepBlocks && d.DependsOnID == id {
						n++
					}
				}
			}
			return n
		}
	}
	n := s.blocksDependents()
	return func(id string) int { return n[id] }
}

// blocksDependents counts, per id, the issues with a "blocks" edge to it.
func (s *Store) blocksDependents() map[string]int {
	n := map[string]int{}
	for _, r := range s.Records() {
		if r.Kind != KindIssue || r.Issue == nil {
			continue
		}
		for _, d := range r.Issue.Deps {
			if d.Type == DepBlocks {
				n[d.DependsOnID]++
			}
		}
	}
	return n
}

// setCount writes n under key when the record has the key and holds
// another value there.
func setCount(r *Record, key string, n int) {
	old := r.get(key)
	if old == nil {
		return
	}
	if v := strconv.Itoa(n); string(old) != v {
		r.setRaw(key, []byte(v))
	}
}
