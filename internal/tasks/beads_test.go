package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readBeads(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "beads", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// lineOf returns the stored line of the record with id (or memory key).
func lineOf(t *testing.T, s *Store, id string) map[string]json.RawMessage {
	t.Helper()
	for _, line := range bytes.Split(s.Bytes(), []byte{'\n'}) {
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if string(m["id"]) == `"`+id+`"` || string(m["key"]) == `"`+id+`"` {
			return m
		}
	}
	t.Fatalf("%s not in the file:\n%s", id, s.Bytes())
	return nil
}

func TestMergeBeadsReadsEveryEra(t *testing.T) {
	s, _ := Parse(nil)
	var added []string
	headers := 0
	for _, f := range []string{"v0.49.jsonl", "dolt-1.0.2.jsonl", "v1.0.5.jsonl"} {
		res, err := s.MergeBeads(readBeads(t, f), false)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		added = append(added, res.Added...)
		headers += res.Headers
	}
	want := []string{"old-a1", "old-a2", "old-a3", "new-b1", "new-b2", "cur-c1", "memory:deploy"}
	if !slices.Equal(added, want) {
		t.Errorf("added %v, want %v", added, want)
	}
	if headers != 1 {
		t.Errorf("headers skipped %d, want 1", headers)
	}
	// What memctl check reads: every line a record, no problem.
	if probs, n := ValidateJSONL(s.Bytes()); len(probs) > 0 || n != 7 {
		t.Fatalf("the merged file: %d records, problems %+v", n, probs)
	}
	a2 := lineOf(t, s, "old-a2")
	if string(a2["hook_bead"]) != `"hb-1"` {
		t.Errorf("an unknown key was dropped: %s", a2)
	}
	if string(a2["ephemeral"]) != "true" || a2["wisp"] != nil {
		t.Errorf("wisp is not ephemeral: %s", a2)
	}
	if string(lineOf(t, s, "old-a3")["delete_reason"]) != `"dup"` {
		t.Error("the tombstone lost its fields")
	}
	if c := string(lineOf(t, s, "old-a1")["comments"]); !strings.Contains(c, `"id":1,`) {
		t.Errorf("an integer comment id changed: %s", c)
	}
	b1 := lineOf(t, s, "new-b1")
	for _, k := range []string{"dependency_count", "dependent_count", "comment_count"} {
		if b1[k] != nil {
			t.Errorf("bd's export-only %s kept: %s", k, b1)
		}
	}
	if b := string(b1["bonded_from"]); !strings.Contains(b, `"source_id":"new-p1"`) || strings.Contains(b, "proto_id") {
		t.Errorf("proto_id is not source_id: %s", b)
	}
	c1 := lineOf(t, s, "cur-c1")
	if c1["_type"] != nil || string(c1["timeout"]) != "3600000000000" {
		t.Errorf("cur-c1: %s", c1)
	}
	if string(lineOf(t, s, "deploy")["value"]) != `"use the blue pool"` {
		t.Error("the memory line was not kept")
	}
	if iss, err := s.Get("old-a2"); err != nil || !iss.Ephemeral || len(iss.Deps) != 1 {
		t.Errorf("old-a2 as the graph sees it: %+v, %v", iss, err)
	}

	// Again, from the same files: nothing new, nothing changed.
	before := s.Bytes()
	for _, f := range []string{"v0.49.jsonl", "dolt-1.0.2.jsonl", "v1.0.5.jsonl"} {
		res, err := s.MergeBeads(readBeads(t, f), false)
		if err != nil || len(res.Added)+len(res.Replaced)+len(res.Conflicts) > 0 {
			t.Errorf("%s again: %+v, %v", f, res, err)
		}
	}
	if !bytes.Equal(s.Bytes(), before) {
		t.Error("a second import changed the file")
	}
}

func TestMergeBeadsConflicts(t *testing.T) {
	mine := `{"id":"old-a1","title":"Parser (mine)","status":"open","priority":1,"issue_type":"task","created_at":"2026-01-10T09:00:00Z","updated_at":"2026-01-10T09:00:00Z"}` + "\n" +
		// The same content as the Beads file's old-a2, keys in another order.
		`{"title":"Wire CLI","id":"old-a2","priority":2,"status":"closed","issue_type":"feature","created_at":"2026-01-11T09:00:00Z","updated_at":"2026-01-12T09:00:00Z","closed_at":"2026-01-12T09:00:00Z","dependencies":[{"depends_on_id":"old-a1","issue_id":"old-a2","type":"blocks","created_at":"2026-01-11T09:00:00Z","created_by":"t"}],"hook_bead":"hb-1","ephemeral":true}` + "\n"
	s, err := Parse([]byte(mine))
	if err != nil {
		t.Fatal(err)
	}
	before := s.Bytes()
	res, err := s.MergeBeads(readBeads(t, "v0.49.jsonl"), false)
	var ce *BeadsConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.IDs, []string{"old-a1"}) {
		t.Fatalf("err %v, want a conflict on old-a1 alone", err)
	}
	if !slices.Equal(res.Unchanged, []string{"old-a2"}) {
		t.Errorf("unchanged %v: the same content in another key order is not a conflict", res.Unchanged)
	}
	if !bytes.Equal(s.Bytes(), before) {
		t.Error("a refused merge changed the store")
	}
	res, err = s.MergeBeads(readBeads(t, "v0.49.jsonl"), true)
	if err != nil || !slices.Equal(res.Replaced, []string{"old-a1"}) || !slices.Equal(res.Added, []string{"old-a3"}) {
		t.Fatalf("forced: %+v, %v", res, err)
	}
	if iss, _ := s.Get("old-a1"); iss.Title != "Parser" {
		t.Errorf("forced: old-a1's title %q, want the Beads file's", iss.Title)
	}
}

func TestMergeBeadsRefusesBadLines(t *testing.T) {
	cases := map[string]struct {
		data  string
		line  int
		field string
	}{
		"no title":        {`{"id":"x-1","status":"open","priority":2}`, 1, "title"},
		"not an object":   {"\n[1,2]", 2, ""},
		"a duplicate id":  {`{"id":"x-1","title":"a","priority":2}` + "\n" + `{"id":"x-1","title":"b","priority":2}`, 2, "id"},
		"closed, no time": {`{"id":"x-1","title":"a","status":"closed","priority":2}`, 1, "closed_at"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, _ := Parse(nil)
			_, err := s.MergeBeads([]byte(c.data), false)
			var le *LineError
			if !errors.As(err, &le) || le.Line != c.line || le.Field != c.field {
				t.Fatalf("err %v, want a *LineError at line %d, field %q", err, c.line, c.field)
			}
			if len(s.Records()) != 0 {
				t.Error("a refused merge added records")
			}
		})
	}
}
