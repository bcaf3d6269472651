package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// exportOnlyKeys are what bd's exports add to an issue that is not the
// issue's data: the record type of bd ≥ 1.0.3 ("_type":"issue") and the
// counts of bd's IssueWithCounts (Dolt era), which bd's own import ignores
// and memctl computes when it prints (they would be wrong after the first
// change).
var exportOnlyKeys = []string{"dependency_count", "dependent_count", "comment_count"}

// BeadsImport is what MergeBeads did, by id (other records by their
// _type and key).
type BeadsImport struct {
	Added, Unchanged, Replaced []string
	// Conflicts are ids present on both sides with different content; each
	// is left as it was unless the merge was forced (then it is Replaced).
	Conflicts []string
	// Headers counts the skipped "_schema" header lines.
	Headers int
}

// BeadsConflictError refuses a Beads import that would change issues the
// workspace already has with other content. Nothing was written.
type BeadsConflictError struct{ IDs []string }

func (e *BeadsConflictError) Error() string {
	const show = 20
	ids := e.IDs
	more := ""
	if len(ids) > show {
		ids, more = ids[:show], fmt.Sprintf(" and %d more", len(e.IDs)-show)
	}
	return fmt.Sprintf("%d issue(s) are in the workspace with other content: %s%s", len(e.IDs), strings.Join(ids, ", "), more)
}

// MergeBeads merges the records of a Beads JSONL file (data; any era of
// bd: v0.x's bare issues, the Dolt era's issues with counts, v1.0.3+'s
// "_type" lines and memories, an optional "_schema" header line) into s.
// Each line is read with the parser every task command uses, so a line
// memctl check would refuse is a *LineError naming the line in data.
// What differs from memctl's file is mapped: the header is skipped,
// export-only keys (the counts, "_type":"issue") are dropped, the legacy
// "wisp" is "ephemeral", a bond's pre-v0.63 "proto_id" is "source_id";
// every other key, known or not, is kept as it is. A record whose id is
// new is added; one identical in content (key order and spacing aside) is
// left alone; one that differs is a conflict, listed in a
// *BeadsConflictError, unless force (then the incoming record replaces
// the workspace's). Non-issue records (bd's memories) are keyed by
// "_type" and "key". Nothing in s changes on an error.
func (s *Store) MergeBeads(data []byte, force bool) (*BeadsImport, error) {
	body, _ := cutBOM(data)
	res := &BeadsImport{}
	lines := splitLines(body)
	recs := make([]*Record, len(lines))
	headers := make([]bool, len(lines))
	errs := make([]error, len(lines))
	eachRecordLine(lines, func(i int, line []byte) { // blank lines skipped, CR cut
		norm, header, err := normaliseBeads(line, i+1)
		if err == nil && !header {
			recs[i], err = parseRecord(norm, i+1)
		}
		headers[i], errs[i] = header, err
	})
	var incoming []*Record
	seen := map[string]int{}
	for i, r := range recs {
		switch {
		case errs[i] != nil:
			return nil, errs[i]
		case headers[i]:
			res.Headers++
			continue
		case r == nil:
			continue
		}
		k := beadsKey(r)
		if prev, dup := seen[k]; dup {
			return nil, &LineError{Line: i + 1, Field: "id", Message: fmt.Sprintf("%s is also on line %d; keep one of them", describeKey(k), prev)}
		}
		seen[k] = i + 1
		incoming = append(incoming, r)
	}
	have := map[string]int{}
	for i, r := range s.Records() {
		have[beadsKey(r)] = i
	}
	type swap struct {
		at  int
		rec *Record
	}
	var swaps []swap
	var adds []*Record
	for _, r := range incoming {
		k := beadsKey(r)
		name := describeID(r)
		i, ok := have[k]
		switch {
		case !ok:
			adds = append(adds, r)
			res.Added = append(res.Added, name)
		case sameContent(s.records[i], r):
			res.Unchanged = append(res.Unchanged, name)
		case force:
			swaps = append(swaps, swap{i, r})
			res.Replaced = append(res.Replaced, name)
		default:
			res.Conflicts = append(res.Conflicts, name)
		}
	}
	if len(res.Conflicts) > 0 {
		return res, &BeadsConflictError{IDs: res.Conflicts}
	}
	for _, sw := range swaps {
		s.records[sw.at] = sw.rec
		if sw.rec.Issue != nil {
			s.byID[sw.rec.Issue.ID] = sw.rec.Issue
		}
	}
	for _, r := range adds {
		s.add(r)
	}
	return res, nil
}

// normaliseBeads maps one line of a bd export to memctl's record, or
// reports a "_schema" header line.
func normaliseBeads(line []byte, lineNo int) ([]byte, bool, error) {
	r, err := parseRecordFields(line, lineNo)
	if err != nil {
		// parseRecord names what is wrong, as memctl check would.
		if _, perr := parseRecord(line, lineNo); perr != nil {
			return nil, false, perr
		}
		return nil, false, err
	}
	if r.get("_schema") != nil && r.get("id") == nil {
		return nil, true, nil
	}
	if t := r.get("_type"); t != nil {
		if s, ok := rawString(t); ok && s == "issue" {
			r.del("_type")
		}
	}
	if r.get("_type") == nil {
		for _, k := range exportOnlyKeys {
			r.del(k)
		}
		if w := r.get("wisp"); w != nil {
			if r.get("ephemeral") == nil {
				r.setRaw("ephemeral", w)
			}
			r.del("wisp")
		}
		if b := r.get("bonded_from"); b != nil {
			if nb, changed := renameInElements(b, "proto_id", "source_id"); changed {
				r.setRaw("bonded_from", nb)
			}
		}
	}
	if !r.dirty {
		return line, false, nil
	}
	return r.encode(), false, nil
}

// parseRecordFields splits a line into fields without decoding an issue.
func parseRecordFields(line []byte, lineNo int) (*Record, error) {
	fields, _, err := scanObject(line)
	if err != nil {
		return nil, &LineError{Line: lineNo, Message: err.Error()}
	}
	return &Record{Line: lineNo, raw: line, fields: fields}, nil
}

// renameInElements renames key old to new in each object of the JSON
// array arr that has old and not new.
func renameInElements(arr []byte, old, new string) ([]byte, bool) {
	var els []map[string]json.RawMessage
	if json.Unmarshal(arr, &els) != nil {
		return arr, false
	}
	changed := false
	for _, e := range els {
		if v, ok := e[old]; ok && e[new] == nil {
			e[new] = v
			delete(e, old)
			changed = true
		}
	}
	if !changed {
		return arr, false
	}
	out, err := json.Marshal(els)
	if err != nil {
		return arr, false
	}
	return out, true
}

// beadsKey identifies a record across two files: an issue or tombstone by
// id, another record by its _type and key (bd's memories), else by its
// whole line.
func beadsKey(r *Record) string {
	if r.Issue != nil {
		return "1" + r.Issue.ID
	}
	t, _ := rawString(r.get("_type"))
	if k, ok := rawString(r.get("key")); ok {
		return "2" + t + "\x00" + k
	}
	return "3" + string(r.encode())
}

func describeKey(k string) string {
	switch k[0] {
	case '1':
		return fmt.Sprintf("id %q", k[1:])
	case '2':
		t, key, _ := strings.Cut(k[1:], "\x00")
		return fmt.Sprintf("%s %q", t, key)
	}
	return "the same record"
}

// describeID names a record in a result: its id, or _type:key.
func describeID(r *Record) string {
	if r.Issue != nil {
		return r.Issue.ID
	}
	t, _ := rawString(r.get("_type"))
	k, _ := rawString(r.get("key"))
	return t + ":" + k
}

// sameContent compares two records as JSON values: key order and spacing
// do not matter, anything else does.
func sameContent(a, b *Record) bool {
	ea, eb := a.encode(), b.encode()
	if bytes.Equal(ea, eb) {
		return true
	}
	var va, vb any
	if json.Unmarshal(ea, &va) != nil || json.Unmarshal(eb, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
