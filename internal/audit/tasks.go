package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/tasks"
)

// diffTasks names what changed in issues.jsonl, one entry per issue. Only
// the lines that differ are parsed: a write keeps the file's order, so a commit
// that changes a few tasks of thousands leaves a long common head and
// tail, and of the lines between, those found on both sides (moved) are
// dropped too.
func diffTasks(rel string, before, after []byte) []Entry {
	gone, came := changedLines(before, after)
	old, errOld := tasks.Parse(gone)
	cur, errCur := tasks.Parse(came)
	if errOld != nil || errCur != nil {
		err := errCur
		if errOld != nil {
			err = fmt.Errorf("the version before: %w", errOld)
		}
		return []Entry{{File: rel, Kind: KindFile, Action: "changed", Details: []string{"unreadable: " + firstWords(err.Error())}}}
	}
	byID := map[string]*tasks.Issue{}
	for _, r := range old.Records() {
		if r.Issue != nil {
			byID[r.Issue.ID] = r.Issue
		}
	}
	var out []Entry
	for _, r := range cur.Records() {
		if r.Issue == nil {
			continue
		}
		prev := byID[r.Issue.ID]
		delete(byID, r.Issue.ID)
		if e, ok := taskEntry(rel, prev, r.Issue); ok {
			out = append(out, e)
		}
	}
	for _, r := range old.Records() {
		if r.Issue != nil && byID[r.Issue.ID] != nil {
			out = append(out, Entry{File: rel, Kind: KindTask, ID: r.Issue.ID, Action: "removed", Text: firstWords(r.Issue.Title)})
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// changedLines returns the lines of before that after lacks and the lines
// of after that before lacks, each in file order, as issues.jsonl text.
func changedLines(before, after []byte) (gone, came []byte) {
	head := commonPrefix(before, after)
	head = bytes.LastIndexByte(before[:head], '\n') + 1 // whole lines only
	// The common tail, from the first line start inside it, so that it
	// starts a line on both sides.
	tail := commonSuffix(before[head:], after[head:])
	if i := bytes.IndexByte(before[len(before)-tail:], '\n'); i >= 0 {
		tail -= i + 1
	} else {
		tail = 0
	}
	b, a := before[head:len(before)-tail], after[head:len(after)-tail]
	// Lines are counted by a 64-bit hash rather than kept as strings: the
	// region between head and tail can be most of a large file.
	seed := maphash.MakeSeed()
	count := map[uint64]int{}
	for line := range bytes.Lines(b) {
		count[maphash.Bytes(seed, bytes.TrimRight(line, "\r\n"))]++
	}
	var cameLines [][]byte // lines of a that b lacks
	for line := range bytes.Lines(a) {
		key := bytes.TrimRight(line, "\r\n")
		if h := maphash.Bytes(seed, key); count[h] > 0 {
			count[h]--
			continue
		}
		cameLines = append(cameLines, key)
	}
	var goneLines [][]byte // lines of b that a lacks
	for line := range bytes.Lines(b) {
		key := bytes.TrimRight(line, "\r\n")
		if h := maphash.Bytes(seed, key); count[h] > 0 {
			count[h]--
			goneLines = append(goneLines, key)
		}
	}
	return joinLines(goneLines), joinLines(cameLines)
}

func joinLines(lines [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// compareChunk is how many bytes commonPrefix and commonSuffix compare at
// once with bytes.Equal (vectorised) before going byte by byte: a commit
// that changes a few tasks of a 6.7 MB file leaves megabytes in common.
const compareChunk = 4096

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+compareChunk <= n && bytes.Equal(a[i:i+compareChunk], b[i:i+compareChunk]) {
		i += compareChunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+compareChunk <= n && bytes.Equal(a[len(a)-i-compareChunk:len(a)-i], b[len(b)-i-compareChunk:len(b)-i]) {
		i += compareChunk
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// taskEntry names what changed in one issue (prev nil: it is new). An
// issue whose record changed only in fields memctl does not name (its
// updated_at alone) is "updated" with no details; one whose line changed
// but not its content (a reformatted line) has no entry.
func taskEntry(rel string, prev, cur *tasks.Issue) (Entry, bool) {
	e := Entry{File: rel, Kind: KindTask, ID: cur.ID, Text: firstWords(cur.Title)}
	if prev == nil {
		e.Action = "created"
		if cur.Status == tasks.StatusTombstone {
			e.Action = "deleted"
		} else if cur.Status != tasks.StatusOpen {
			e.Details = []string{cur.Status}
		}
		return e, true
	}
	if cur.Status == tasks.StatusTombstone && prev.Status != tasks.StatusTombstone {
		e.Action = "deleted"
		return e, true
	}
	e.Action = "updated"
	e.Details = taskDetails(prev, cur)
	if len(e.Details) == 0 && sameFields(prev.Record(), cur.Record()) {
		return e, false
	}
	return e, true
}

// taskDetails lists the changes of an issue in memctl's terms.
func taskDetails(prev, cur *tasks.Issue) []string {
	var d []string
	if prev.Status != cur.Status {
		d = append(d, fmt.Sprintf("status %s→%s", prev.Status, cur.Status))
	}
	if prev.Title != cur.Title {
		d = append(d, "title changed")
	}
	if prev.Priority != cur.Priority {
		d = append(d, fmt.Sprintf("priority P%d→P%d", prev.Priority, cur.Priority))
	}
	if prev.Assignee != cur.Assignee {
		if cur.Assignee == "" {
			d = append(d, "unassigned")
		} else {
			d = append(d, "assigned to "+cur.Assignee)
		}
	}
	if n := cur.Comments - prev.Comments; n == 1 {
		d = append(d, "commented")
	} else if n > 1 {
		d = append(d, fmt.Sprintf("%d comments", n))
	}
	for _, f := range []struct {
		name string
		a, b string
	}{{"description", prev.Description, cur.Description}, {"design", prev.Design, cur.Design},
		{"acceptance criteria", prev.AcceptanceCriteria, cur.AcceptanceCriteria}, {"notes", prev.Notes, cur.Notes}} {
		if f.a != f.b {
			d = append(d, f.name+" edited")
		}
	}
	if lb := labelChanges(prev.Labels, cur.Labels); lb != "" {
		d = append(d, lb)
	}
	if !slices.EqualFunc(prev.Deps, cur.Deps, func(a, b tasks.Dep) bool { return a.DependsOnID == b.DependsOnID && a.Type == b.Type }) {
		d = append(d, "dependencies changed")
	}
	return d
}

// labelChanges is "labels +a -b", or "" when the set is the same.
func labelChanges(prev, cur []string) string {
	var parts []string
	for _, l := range cur {
		if !slices.Contains(prev, l) {
			parts = append(parts, "+"+l)
		}
	}
	for _, l := range prev {
		if !slices.Contains(cur, l) {
			parts = append(parts, "-"+l)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "labels " + strings.Join(parts, " ")
}

// sameFields reports whether two records hold the same fields with the
// same values, whatever their order and spacing.
func sameFields(a, b *tasks.Record) bool {
	fa := map[string]string{}
	a.Fields(func(k string, raw []byte) { fa[k] = string(compactJSON(raw)) })
	same, n := true, 0
	b.Fields(func(k string, raw []byte) {
		n++
		if v, ok := fa[k]; !ok || v != string(compactJSON(raw)) {
			same = false
		}
	})
	return same && n == len(fa)
}

// compactJSON is raw without insignificant white space (raw itself when
// it does not compact).
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
