package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Kind tells what a line of issues.jsonl holds.
type Kind int

// The kinds of records.
const (
	KindIssue     Kind = iota // an issue: part of the graph
	KindTombstone             // status "tombstone": skipped, kept on write
	KindOther                 // a "_type" other than "issue" (Beads memories…): kept untouched
)

// fieldOrder is the order of Beads' types.Issue fields, in which modified
// records are written so that files stay diffable against bd's own
// exports. "_type" leads when present (bd ≥ 1.0.3); keys not listed follow
// in the order they had.
var fieldOrder = []string{
	"_type", "id", "title", "description", "design", "acceptance_criteria", "notes", "spec_id",
	"status", "priority", "issue_type", "assignee", "owner", "estimated_minutes",
	"created_at", "created_by", "updated_at", "started_at", "closed_at", "close_reason",
	"closed_by_session", "due_at", "defer_until", "external_ref", "source_system", "metadata",
	"compaction_level", "compacted_at", "compacted_at_commit", "original_size",
	"labels", "dependencies", "comments",
	"deleted_at", "deleted_by", "delete_reason", "original_type",
	"sender", "ephemeral", "wisp_type", "no_history", "pinned", "is_template", "bonded_from",
	"await_type", "await_id", "timeout", "waiters", "source_formula", "source_location",
	"mol_type", "work_type", "event_kind", "actor", "target", "payload",
}

var fieldRank = func() map[string]int {
	m := make(map[string]int, len(fieldOrder))
	for i, k := range fieldOrder {
		m[k] = i
	}
	return m
}()

// Record is one line of issues.jsonl. Its fields keep their raw JSON, so a
// record memctl did not change is written back byte for byte, and fields
// memctl does not know survive every rewrite.
type Record struct {
	// Line is the 1-based line the record was read from; 0 for a new one.
	Line int
	Kind Kind
	// Issue is the typed view of an issue or tombstone record.
	Issue *Issue

	raw        []byte // the line as read, without its line ending
	start, end int    // raw's byte range in the file
	fields     []field
	lazy       bool // fields not split yet (loaded from the cache)
	dirty      bool
}

// load splits a lazy record's fields on first use. A lazy record came
// from the cache, so its line was validated when the cache was built.
func (r *Record) load() {
	if r.lazy {
		r.fields, _, _ = scanTrusted(r.raw)
		r.lazy = false
	}
}

// get returns the raw value of key, or nil.
func (r *Record) get(key string) []byte {
	r.load()
	for _, f := range r.fields {
		if f.key == key {
			return f.raw
		}
	}
	return nil
}

// set stores v (encoded as JSON) under key, or deletes key when v is the
// zero value and the field is optional (omitempty in bd).
func (r *Record) set(key string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tasks: encode %s: %v", key, err)) // only memctl's own values reach here
	}
	r.setRaw(key, raw)
}

func (r *Record) setRaw(key string, raw []byte) {
	r.load()
	r.dirty = true
	for i, f := range r.fields {
		if f.key == key {
			r.fields[i].raw = raw
			return
		}
	}
	r.fields = append(r.fields, field{key: key, raw: raw})
}

// setString sets a string field, removing it when s is empty (bd omits
// empty optional strings). Required fields use set.
func (r *Record) setString(key, s string) {
	if s == "" {
		r.del(key)
		return
	}
	r.set(key, s)
}

// setTime sets a timestamp field in RFC 3339 UTC, or removes it when t is
// zero.
func (r *Record) setTime(key string, t time.Time) {
	if t.IsZero() {
		r.del(key)
		return
	}
	r.set(key, t.UTC().Format(time.RFC3339))
}

func (r *Record) del(key string) {
	r.load()
	for i, f := range r.fields {
		if f.key == key {
			r.fields = slices.Delete(r.fields, i, i+1)
			r.dirty = true
			return
		}
	}
}

// encode returns the record's line without a line ending: the original
// bytes if nothing changed, else the fields in bd's order.
func (r *Record) encode() []byte {
	if !r.dirty && r.raw != nil {
		return r.raw
	}
	r.load()
	fs := slices.Clone(r.fields)
	slices.SortStableFunc(fs, compareFields)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, f.key)
		compactInto(&b, f.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeKey(b *bytes.Buffer, key string) {
	k, _ := json.Marshal(key)
	b.Write(k)
	b.WriteByte(':')
}

// compactInto appends raw without insignificant white space.
func compactInto(b *bytes.Buffer, raw []byte) {
	if bytes.ContainsAny(raw, " \t\r\n") {
		if err := json.Compact(b, raw); err == nil {
			return
		}
	}
	b.Write(raw)
}

// parseRecord reads one line. lineNo is for error messages.
func parseRecord(line []byte, lineNo int) (*Record, error) {
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] != '{' {
		for _, m := range []string{"<<<<<<<", "=======", ">>>>>>>"} {
			if bytes.HasPrefix(t, []byte(m)) {
				return nil, &LineError{Line: lineNo, Message: "a merge conflict marker; keep one version of each record between the markers and delete the marker lines"}
			}
		}
		return nil, &LineError{Line: lineNo, Message: "not a JSON object; each line must be one issue object"}
	}
	fields, _, err := scanObject(line)
	if err != nil {
		return nil, &LineError{Line: lineNo, Message: err.Error()}
	}
	r := &Record{Line: lineNo, raw: line, fields: fields}
	if t := r.get("_type"); t != nil {
		if s, ok := rawString(t); !ok || s != "issue" {
			r.Kind = KindOther
			return r, nil
		}
	}
	iss, err := decodeIssue(r)
	if err != nil {
		return nil, err
	}
	r.Issue = iss
	if iss.Status == StatusTombstone {
		r.Kind = KindTombstone
	}
	return r, nil
}

// LineError is a record that cannot be read: the line, the field at fault
// ("" for the whole line) and what is wrong.
type LineError struct {
	Line    int
	Field   string
	Message string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Detail())
}

// Detail is the error without its line: the field, when there is one,
// and the message.
func (e *LineError) Detail() string {
	if e.Field == "" {
		return e.Message
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Message)
}

// Fields calls fn for every field of the record in bd's order, with the
// field's raw JSON value.
func (r *Record) Fields(fn func(key string, raw []byte)) {
	fs := r.fields
	if r.lazy {
		// Printing a record read through the cache: split it into a
		// scratch slice and leave it lazy, so that a list of thousands
		// allocates nothing per record.
		p := fieldScratch.Get().(*[]field)
		defer fieldScratch.Put(p)
		*p, _, _ = scanObjectWith(scanner{b: r.raw, trusted: true}, *p)
		fs = *p
	}
	// Most records are in bd's order already (bd and memctl write them
	// so): check before sorting.
	prev := -1
	for _, f := range fs {
		rank, ok := fieldRank[f.key]
		if !ok {
			rank = len(fieldOrder)
		}
		if rank < prev {
			fs = slices.Clone(fs)
			slices.SortStableFunc(fs, compareFields)
			break
		}
		prev = rank
	}
	for _, f := range fs {
		fn(f.key, f.raw)
	}
}

var fieldScratch = sync.Pool{New: func() any { return new([]field) }}

func compareFields(a, b field) int {
	ra, oka := fieldRank[a.key]
	rb, okb := fieldRank[b.key]
	switch {
	case oka && okb:
		return ra - rb
	case oka:
		return -1
	case okb:
		return 1
	}
	return 0
}
