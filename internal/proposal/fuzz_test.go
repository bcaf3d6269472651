package proposal

import (
	"bytes"
	"encoding/json"
	"testing"
)

const fuzzProposal = `{
  "schema_version": 1,
  "id": "p-1a2b3c4",
  "kind": "fact",
  "action": "update",
  "category": "pitfalls",
  "fact_id": "f-abc1234",
  "content": "Run make generate after editing \"api.proto\" <b>&</b>",
  "reason": "r",
  "evidence": [{"type": "file", "ref": "a.go:12"}],
  "author": "agent",
  "created_at": "2026-11-20T09:00:00Z",
  "status": "pending",
  "reviewer": "",
  "reviewed_at": null,
  "feedback": "",
  "similar": [],
  "over_budget": false,
  "applied_fact_id": "",
  "history": [{"action": "edited", "by": "ann", "at": "2026-11-21T10:00:00+02:00", "old_content": "a", "new_content": "b"}],
  "x_future": {"nested": [1, 2, {"deep": [[[]]]}], "n": 1e400}
}
`

// FuzzDecodeEncode: a proposal file Decode reads encodes to a file that
// decodes to the same proposal and encodes to itself; the members memctl
// does not know are kept with their values.
func FuzzDecodeEncode(f *testing.F) {
	f.Add([]byte(fuzzProposal))
	f.Add([]byte(`{"id":"m1","file":"notes/pitfalls.md","action":"create","content":"x","reason":"r","status":"pending","created":"2026-11-20 09:00:00","reviewed":""}`))
	f.Add([]byte("{\r\n  \"id\": \"p-1\",\r\n  \"ID\": \"p-2\",\r\n  \"unknown\": \"\xff\",\r\n  \"steps\": [\"a\", \"b\"]\r\n}\r\n"))
	f.Add([]byte(`{"id":"p-1","priority":123456789012345678901234567890,"other":null,"a":{"b":{"c":{"d":[]}}}}`))
	f.Add([]byte(`{"created_at":"0001-01-01T00:00:00+01:00"}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data, "p.json")
		if err != nil {
			return
		}
		enc := Encode(p)
		p2, err := Decode(enc, "p.json")
		if err != nil {
			t.Fatalf("encoded proposal does not decode: %v\n%s", err, enc)
		}
		if again := Encode(p2); !bytes.Equal(again, enc) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, again)
		}
		if p.Mneme {
			return // rewritten in memctl's format, mneme's keys dropped
		}
		var all map[string]json.RawMessage
		if json.Unmarshal(data, &all) != nil {
			return
		}
		for k, v := range all {
			if known(k) {
				continue
			}
			got, ok := p2.Unknown[k]
			if !ok {
				t.Fatalf("unknown member %q lost:\n%s", k, enc)
			}
			var a, b bytes.Buffer
			_ = json.Compact(&a, v)
			_ = json.Compact(&b, got)
			if a.String() != b.String() {
				t.Fatalf("unknown member %q = %s, was %s", k, got, v)
			}
		}
	})
}
