package transcript

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFieldsRejectsWhatIsNotOneObject(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "this is not json", "[1,2]", `"s"`, "{", `{"a":1`, `{"a":"b}`, `{"a":"b\"}`, `{"a":1,}`,
		`{"a" 1}`, `{"a":}`, `{"a":[1,{"b":2]}`, `{"a":1} {"b":2}`, `{"a":1} x`, `{a:1}`, `{"a":1 "b":2}`,
	} {
		if err := fields([]byte(in), nil); err == nil {
			t.Errorf("fields(%q) accepted it", in)
		}
	}
}

// FuzzFields: every JSON object encoding/json accepts, the scanner reads
// to the same members.
func FuzzFields(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b" : [ 1 , { "c" : "}" } ] } `, `{"a":"x\"y\\","b":null,"c":true,"d":-1.5e+3}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":"Exit code 1\n\"q\" {[","is_error":true}]}}`,
		`{"k\"ey":"v","u":"\u00e9\\\\"}`, `{"a":{"b":{"c":[[[]]]}},"e":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) || json.Unmarshal(data, &want) != nil {
			return
		}
		got := map[string]json.RawMessage{}
		err := fields(data, func(k, v []byte) bool {
			var key string
			if json.Unmarshal(k, &key) != nil {
				t.Fatalf("key %q is not a JSON string", k)
			}
			got[key] = v
			return true
		})
		if err != nil {
			t.Fatalf("fields(%q): %v; encoding/json accepts it", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("fields(%q) found %d members, want %d", data, len(got), len(want))
		}
		for k, v := range want {
			var a, b bytes.Buffer
			_ = json.Compact(&a, v)
			_ = json.Compact(&b, got[k])
			if a.String() != b.String() {
				t.Errorf("member %q = %s, want %s", k, got[k], v)
			}
		}
	})
}

func TestStr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`"plain"`: "plain", `"a\nb\"c\u00e9"`: "a\nb\"cé", `12`: "", `null`: "", `"`: ""} {
		if got := str([]byte(in)); got != want {
			t.Errorf("str(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzStr: str decodes every JSON string as encoding/json does.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\\\/\b\f\r\t"`, `"\u12"`, `"\x"`, `"日本\"語"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		// str gets what the scanner cuts out: one string, no space around it.
		if json.Unmarshal(data, &want) != nil || len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
			return
		}
		if got := str(data); got != want {
			t.Errorf("str(%s) = %q, want %q", data, got, want)
		}
	})
}
