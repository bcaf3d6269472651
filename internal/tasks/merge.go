package tasks

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MergeResult is the output of a three-way merge of issues.jsonl.
type MergeResult struct {
	Data []byte
	// Issues counts the issue records merged into Data (those left between
	// conflict markers are not).
	Issues int
	// Conflicts are the ids whose records could not be merged; Data holds
	// conflict markers around both versions of each.
	Conflicts []string
}

// Merge merges the issues.jsonl versions ours and theirs against their
// common ancestor base, record by record, keyed by id:
//
//   - a record changed on one side only takes that side;
//   - title, description, design and acceptance criteria take the side
//     with the newer updated_at; closed wins the status; the lower
//     priority number wins; updated_at and closed_at take the later time;
//     notes edited on both sides are concatenated;
//   - labels, dependencies and comments merge as sets keyed by label,
//     target and comment id, where a removal on either side wins;
//   - a record deleted on one side and changed on the other is kept;
//   - any other field changed differently on both sides is a conflict.
//
// Records that are not issues are merged as whole lines.
// A version that does not parse is an error that names it (base, ours,
// theirs).
func Merge(base, ours, theirs []byte) (*MergeResult, error) {
	b, err := Parse(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	o, err := Parse(ours)
	if err != nil {
		return nil, fmt.Errorf("ours: %w", err)
	}
	t, err := Parse(theirs)
	if err != nil {
		return nil, fmt.Errorf("theirs: %w", err)
	}
	bi, oi, ti := index(b), index(o), index(t)
	// Records in ours' order, then those only theirs has in theirs' order,
	// then those only base has (deleted on one side, changed on the other):
	// a merge changes the lines the two sides changed, not the order.
	var order []string
	seen := map[string]bool{}
	for _, m := range []recordIndex{oi, ti, bi} {
		for _, k := range m.order {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	out := &Store{byID: map[string]*Issue{}, bom: o.bom}
	res := &MergeResult{}
	var conflicts bytes.Buffer
	for _, k := range order {
		rb, ro, rt := bi.recs[k], oi.recs[k], ti.recs[k]
		merged, conflict := mergeRecord(rb, ro, rt)
		if conflict {
			res.Conflicts = append(res.Conflicts, strings.TrimPrefix(k, "1"))
			conflicts.WriteString("<<<<<<< ours\n")
			conflicts.Write(ro.encode())
			conflicts.WriteString("\n=======\n")
			conflicts.Write(rt.encode())
			conflicts.WriteString("\n>>>>>>> theirs\n")
			continue
		}
		if merged != nil {
			out.records = append(out.records, merged)
			if merged.Issue != nil {
				res.Issues++
			}
		}
	}
	res.Data = append(out.Bytes(), conflicts.Bytes()...)
	return res, nil
}

// recordIndex holds a version's records by key, and the keys in file order.
type recordIndex struct {
	recs  map[string]*Record
	order []string
}

// index keys issues by id ("1" and the id) and other records by content
// ("2", the line and its occurrence number), so that a line repeated in a
// version is merged as many times as it is there.
func index(s *Store) recordIndex {
	recs := s.Records()
	x := recordIndex{recs: make(map[string]*Record, len(recs)), order: make([]string, 0, len(recs))}
	count := map[string]int{}
	for _, r := range recs {
		var k string
		if r.Issue != nil {
			k = "1" + r.Issue.ID
		} else {
			line := string(r.raw)
			count[line]++
			k = "2" + line + "\x00" + strconv.Itoa(count[line])
		}
		x.recs[k] = r
		x.order = append(x.order, k)
	}
	return x
}

func same(a, b *Record) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.encode(), b.encode())
}

// mergeRecord merges one record; nil means deleted.
func mergeRecord(base, ours, theirs *Record) (*Record, bool) {
	switch {
	case same(ours, theirs):
		return ours, false
	case same(base, ours):
		return theirs, false
	case same(base, theirs):
		return ours, false
	case ours == nil:
		return theirs, false // deleted here, changed there: keep the change
	case theirs == nil:
		return ours, false
	case ours.Issue == nil || theirs.Issue == nil:
		return nil, true
	}
	return mergeFields(base, ours, theirs)
}

// mergeFields merges two changed versions of an issue field by field: a
// field one side left as it was takes the other side's value, and a field
// both changed is settled by its rule in fieldRules. A field with no rule
// that both sides changed differently makes the record a conflict.
func mergeFields(base, ours, theirs *Record) (*Record, bool) {
	get := func(r *Record, k string) []byte {
		if r == nil {
			return nil
		}
		return r.get(k)
	}
	sides := sides{newerTheirs: theirs.Issue.UpdatedAt.After(ours.Issue.UpdatedAt)}
	out := &Record{dirty: true}
	for _, k := range fieldKeys(ours, theirs) {
		sides.base, sides.ours, sides.theirs = get(base, k), get(ours, k), get(theirs, k)
		v, ok := sides.merge(k)
		if !ok {
			return nil, true
		}
		if v != nil {
			out.fields = append(out.fields, field{key: k, raw: v})
		}
	}
	settleClosedAt(out, get(ours, "closed_at"), get(theirs, "closed_at"))
	iss, err := decodeIssue(out)
	if err != nil {
		return nil, true
	}
	out.Issue = iss
	return out, false
}

// fieldKeys are the keys of ours then the keys only theirs has, in order.
func fieldKeys(ours, theirs *Record) []string {
	var keys []string
	for _, r := range []*Record{ours, theirs} {
		for _, f := range r.fields {
			if !slices.Contains(keys, f.key) {
				keys = append(keys, f.key)
			}
		}
	}
	return keys
}

// sides are the three versions of one field's raw JSON (nil: absent) and
// which side's record was updated later.
type sides struct {
	base, ours, theirs []byte
	newerTheirs        bool
}

// merge is the field's merged value and false when both sides changed it
// differently and no rule settles it.
func (s sides) merge(key string) ([]byte, bool) {
	switch {
	case bytes.Equal(s.ours, s.theirs):
		return s.ours, true
	case bytes.Equal(s.base, s.ours):
		return s.theirs, true
	case bytes.Equal(s.base, s.theirs):
		return s.ours, true
	}
	rule, ok := fieldRules[key]
	if !ok {
		return nil, false
	}
	return rule(s), true
}

// fieldRules settle a field both sides changed differently. A field not
// here is a conflict: memctl does not guess for fields it does not know.
var fieldRules = map[string]func(sides) []byte{
	"title":               newer,
	"description":         newer,
	"design":              newer,
	"acceptance_criteria": newer,
	"spec_id":             newer,
	"notes":               func(s sides) []byte { return mergeNotes(s.base, s.ours, s.theirs) },
	"status":              func(s sides) []byte { return mergeStatus(s.ours, s.theirs, s.newerTheirs) },
	"priority":            morePressing,
	"updated_at":          later,
	"closed_at":           later,
	"started_at":          later,
	// Derived by bd's export; memctl recomputes them.
	"dependency_count": keepOurs,
	"dependent_count":  keepOurs,
	"comment_count":    keepOurs,
	"close_reason":     firstSet,
	"labels":           func(s sides) []byte { return mergeSet(s.base, s.ours, s.theirs, rawKey) },
	"dependencies":     func(s sides) []byte { return mergeSet(s.base, s.ours, s.theirs, depKey) },
	"comments":         func(s sides) []byte { return mergeSet(s.base, s.ours, s.theirs, commentKey) },
}

// newer is the text of the side whose record was updated later (ours on a
// tie).
func newer(s sides) []byte {
	if s.newerTheirs {
		return s.theirs
	}
	return s.ours
}

// morePressing is the higher priority, the lower number (ours when theirs
// is not a number).
func morePressing(s sides) []byte {
	if pt, ok := rawInt(s.theirs); ok {
		if po, ok := rawInt(s.ours); !ok || pt < po {
			return s.theirs
		}
	}
	return s.ours
}

func later(s sides) []byte { return laterTime(s.ours, s.theirs) }

func keepOurs(s sides) []byte { return s.ours }

// firstSet is ours, or theirs when ours has none.
func firstSet(s sides) []byte {
	if s.ours == nil {
		return s.theirs
	}
	return s.ours
}

// rawKey is a set element's own JSON, for sets of plain values (labels).
func rawKey(e []byte) string { return string(e) }

// settleClosedAt makes closed win: a merged closed record keeps a
// closed_at (the later of the two sides' when the merge dropped it), and
// an open one has none.
func settleClosedAt(out *Record, ours, theirs []byte) {
	if s, _ := rawString(out.get("status")); s != StatusClosed {
		out.del("closed_at")
		return
	}
	if out.get("closed_at") == nil {
		out.setRaw("closed_at", laterTime(ours, theirs))
	}
}

func mergeStatus(vo, vt []byte, newerTheirs bool) []byte {
	so, _ := rawString(vo)
	st, _ := rawString(vt)
	switch {
	case so == StatusClosed:
		return vo
	case st == StatusClosed:
		return vt
	case newerTheirs:
		return vt
	}
	return vo
}

// mergeNotes keeps both sides' additions: when both extended the base, the
// result is ours followed by what theirs added.
func mergeNotes(vb, vo, vt []byte) []byte {
	b, _ := rawString(vb)
	o, _ := rawString(vo)
	t, _ := rawString(vt)
	added := strings.TrimPrefix(t, b)
	if !strings.HasPrefix(t, b) {
		added = t
	}
	added = strings.TrimLeft(added, "\n")
	if added == "" || strings.Contains(o, added) {
		return vo
	}
	sep := "\n"
	if o == "" {
		sep = ""
	}
	return mustJSON(o + sep + added)
}

func laterTime(a, b []byte) []byte {
	ta, erra := time.Parse(time.RFC3339Nano, strings.Trim(string(a), `"`))
	tb, errb := time.Parse(time.RFC3339Nano, strings.Trim(string(b), `"`))
	switch {
	case erra != nil:
		return b
	case errb != nil:
		return a
	case tb.After(ta):
		return b
	}
	return a
}

// mergeSet merges JSON arrays as sets by key: an element survives if it is
// in the base and neither side removed it, or if a side added it.
func mergeSet(vb, vo, vt []byte, key func([]byte) string) []byte {
	d := decoder{}
	els := func(raw []byte) [][]byte { return d.elements(field{key: "set", raw: raw}) }
	b, o, t := els(vb), els(vo), els(vt)
	keyset := func(list [][]byte) map[string]bool {
		m := map[string]bool{}
		for _, e := range list {
			m[key(e)] = true
		}
		return m
	}
	kb, ko, kt := keyset(b), keyset(o), keyset(t)
	var out [][]byte
	seen := map[string]bool{}
	for _, list := range [][][]byte{o, t} {
		for _, e := range list {
			k := key(e)
			if seen[k] {
				continue
			}
			inBase := kb[k]
			if inBase && (!ko[k] || !kt[k]) {
				continue // removed on one side: removal wins
			}
			seen[k] = true
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return joinRaw(out)
}

func depKey(e []byte) string {
	fs, _, _ := scanObject(e)
	for _, f := range fs {
		if f.key == "depends_on_id" {
			return string(f.raw)
		}
	}
	return string(e)
}

func commentKey(e []byte) string {
	fs, _, _ := scanObject(e)
	for _, f := range fs {
		if f.key == "id" {
			return string(f.raw)
		}
	}
	return string(e)
}

func mustJSON(s string) []byte {
	r := &Record{}
	r.set("x", s)
	return r.fields[0].raw
}
