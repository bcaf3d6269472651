package tasks

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// fuzzLines are records of every kind for the seeds: issues with every
// field type, a tombstone, a record that is not an issue.
var fuzzLines = []string{
	mA, mB, mC, mem,
	`{"id":"m-d","title":"D \u00e9\"\\","status":"closed","priority":0,"issue_type":"bug","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z","closed_at":"2026-01-02T00:00:00Z","dependencies":[{"issue_id":"m-d","depends_on_id":"m-a","type":"blocks","created_at":"2026-01-01T00:00:00Z"}],"comments":[{"id":1,"author":"a","text":"x","created_at":"2026-01-01T00:00:00Z"}]}`,
	`{"id":"m-t","title":"gone","status":"tombstone","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`,
	`{"id":"m-n","title":"N","status":"open","priority":99999999999999999999,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","x":{"a":[[[[[[[[[[{"b":[]}]]]]]]]]]]}}`,
}

// nonBlankLines are the numbers of the lines Parse reads as records: those
// with more than white space once a trailing CR is cut.
func nonBlankLines(data []byte) []int {
	body, _ := cutBOM(data)
	var out []int
	for i, l := range splitLines(body) {
		if len(bytes.TrimSpace(bytes.TrimSuffix(l, []byte{'\r'}))) > 0 {
			out = append(out, i+1)
		}
	}
	return out
}

func encodings(s *Store) []string {
	out := make([]string, len(s.Records()))
	for i, r := range s.Records() {
		out[i] = string(r.encode())
	}
	slices.Sort(out)
	return out
}

// FuzzParseRender: a file Parse reads has one record per non-blank line,
// renders to a file that parses to the same records and renders to itself;
// the canonical encoding of every record is a fixed point. A file Parse
// refuses is a *LineError naming one of its non-blank lines.
func FuzzParseRender(f *testing.F) {
	f.Add(jl(fuzzLines...))
	f.Add([]byte(mA + "\r\n" + mem + "\r\n\r\n"))
	f.Add(append([]byte{0xEF, 0xBB, 0xBF}, jl(mB, "", "  ", mC)...))
	f.Add(jl(mA, "<<<<<<< ours", mB, "=======", mC, ">>>>>>> theirs"))
	f.Add(jl(mA, `{"id":"m-a","title":"dup","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`))
	f.Add(jl(mA, "{\"id\":\"m-x\",\"title\":\"\xff\"}"))
	f.Add(jl(` { "id" : "m-s" , "title" : "spaced" , "status" : "open" , "priority" : 2 , "issue_type" : "task" } `, mem, mem))
	f.Add([]byte(mA))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := nonBlankLines(data)
		s, err := Parse(data)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("Parse error %v (%T) names no line", err, err)
			}
			if !slices.Contains(lines, le.Line) {
				t.Fatalf("Parse error names line %d, not a record line (%v): %v", le.Line, lines, err)
			}
			return
		}
		if len(s.Records()) != len(lines) {
			t.Fatalf("%d records from %d non-blank lines", len(s.Records()), len(lines))
		}
		out := s.Bytes()
		s2, err := Parse(out)
		if err != nil {
			t.Fatalf("rendered file does not parse: %v\n%q", err, out)
		}
		if a, b := encodings(s), encodings(s2); !slices.Equal(a, b) {
			t.Fatalf("records changed in the round trip:\n%q\n%q", a, b)
		}
		if again := s2.Bytes(); !bytes.Equal(again, out) {
			t.Fatalf("render not stable:\n%q\n%q", out, again)
		}
		// Re-encode every record, as a save after an edit does.
		for _, r := range s2.Records() {
			r.dirty = true
		}
		canon := s2.Bytes()
		s3, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical file does not parse: %v\n%q", err, canon)
		}
		if len(s3.Records()) != len(s.Records()) {
			t.Fatalf("canonical file has %d records, want %d", len(s3.Records()), len(s.Records()))
		}
		for i, r := range s3.Records() {
			if (r.Issue == nil) != (s2.Records()[i].Issue == nil) || r.Kind != s2.Records()[i].Kind {
				t.Fatalf("record %d changed kind in the canonical encoding", i+1)
			}
			r.dirty = true
		}
		if again := s3.Bytes(); !bytes.Equal(again, canon) {
			t.Fatalf("canonical encoding not a fixed point:\n%q\n%q", canon, again)
		}
	})
}

// mergedRecords parses the merged part of a merge's output (what precedes
// the conflict blocks).
func mergedRecords(t *testing.T, data []byte) *Store {
	t.Helper()
	cut := data
	if i := bytes.Index(data, []byte("<<<<<<< ours\n")); i >= 0 && (i == 0 || data[i-1] == '\n') {
		cut = data[:i]
	}
	s, err := Parse(cut)
	if err != nil {
		t.Fatalf("merged records do not parse: %v\n%q", err, data)
	}
	return s
}

// FuzzMerge: merge(a, a, a) is a's rendering; a record present on both
// sides and unchanged on one side is in the merge with the other side's
// content; a record unchanged on both sides is kept as it is.
func FuzzMerge(f *testing.F) {
	f.Add(jl(mA, mB, mem), jl(mA, mB, mem), jl(mA, mB, mem))
	f.Add(jl(mA, mB, mem), jl(mA, mem), jl(mB, mC, mem))
	f.Add(jl(mem, mA, mem), jl(mA, mem, mem), jl(mem, mC))
	f.Add(jl(fuzzLines...), jl(fuzzLines[2:]...), jl(fuzzLines[:4]...))
	f.Add([]byte(mA+"\r\n"), append([]byte{0xEF, 0xBB, 0xBF}, jl(mA)...), []byte(""))
	f.Add(jl(mA), jl(`{"id":"m-a","title":"A2","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z"}`),
		jl(`{"id":"m-a","title":"A3","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-03T00:00:00Z","design":"d"}`))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if a, err := Parse(ours); err == nil {
			res, err := Merge(ours, ours, ours)
			if err != nil {
				t.Fatalf("merge(a, a, a): %v", err)
			}
			if want := a.Bytes(); !bytes.Equal(res.Data, want) || len(res.Conflicts) > 0 {
				t.Fatalf("merge(a, a, a) = %q (conflicts %v), want %q", res.Data, res.Conflicts, want)
			}
		}
		b, errB := Parse(base)
		o, errO := Parse(ours)
		th, errT := Parse(theirs)
		res, err := Merge(base, ours, theirs)
		if errB != nil || errO != nil || errT != nil {
			if err == nil {
				t.Fatal("Merge accepted a version that does not parse")
			}
			return
		}
		if err != nil {
			t.Fatalf("Merge: %v", err)
		}
		m := mergedRecords(t, res.Data)
		for _, ro := range o.Records() {
			if ro.Issue == nil {
				continue
			}
			id := ro.Issue.ID
			rt, rb := th.byID[id], b.byID[id]
			if rt == nil {
				continue
			}
			var want []byte
			switch {
			case same(ro, rt.rec):
				want = ro.encode()
			case rb != nil && same(rb.rec, ro):
				want = rt.rec.encode()
			case rb != nil && same(rb.rec, rt.rec):
				want = ro.encode()
			default:
				continue
			}
			got := m.byID[id]
			if got == nil {
				t.Fatalf("%s lost by the merge:\n%q", id, res.Data)
			}
			if !bytes.Equal(got.rec.encode(), want) {
				t.Fatalf("%s merged as %s, want %s", id, got.rec.encode(), want)
			}
		}
	})
}
