package tasks

import (
	"bytes"
	"sort"
)

// ChangedIDs compares two versions of issues.jsonl and returns, sorted,
// the ids of the issues added, removed or changed in any field between
// them: what a pull did to the task graph.
func ChangedIDs(before, after []byte) ([]string, error) {
	b, err := Parse(before)
	if err != nil {
		return nil, err
	}
	a, err := Parse(after)
	if err != nil {
		return nil, err
	}
	old := map[string][]byte{}
	for _, r := range b.Records() {
		if r.Issue != nil {
			old[r.Issue.ID] = r.encode()
		}
	}
	var ids []string
	for _, r := range a.Records() {
		if r.Issue == nil {
			continue
		}
		id := r.Issue.ID
		prev, ok := old[id]
		delete(old, id)
		if !ok || !bytes.Equal(prev, r.encode()) {
			ids = append(ids, id)
		}
	}
	for id := range old {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}
