package tasks

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestScanObject(t *testing.T) {
	t.Parallel()
	f, compact, err := scanObject([]byte(`{"id":"a-1","n":-1.5e3,"x":[1,{"y":null}],"t":true,"s":"q\"\u00e9"}`))
	if err != nil || !compact || len(f) != 5 {
		t.Fatalf("fields %v, compact %v, err %v", f, compact, err)
	}
	if f[0].key != "id" || string(f[0].raw) != `"a-1"` || string(f[2].raw) != `[1,{"y":null}]` {
		t.Errorf("fields = %q", f)
	}
	if s, ok := rawString(f[4].raw); !ok || s != "q\"é" {
		t.Errorf("rawString = %q, %v", s, ok)
	}
	if _, compact, _ := scanObject([]byte(`{ "a": 1 }`)); compact {
		t.Error("white space not noticed")
	}
	for _, bad := range []string{``, `[1]`, `{"a":1`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":"\x"}`, `{"a":1} x`, `{a:1}`, "{\"a\":\"\x01\"}", `{"a":tru}`, `{"a":-}`, `{"a":1.}`, "{\"a\":\"\xff\"}"} {
		if _, _, err := scanObject([]byte(bad)); err == nil {
			t.Errorf("scanObject(%q) accepted malformed input", bad)
		}
	}
}

// FuzzScanAgreesWithEncodingJSON checks the hand-written scanner against
// encoding/json: both accept exactly the same objects. On what it
// accepts, the trusted scan (lines read through the cache) must find the
// same fields and the same compactness.
func FuzzScanAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"id":"x","title":"t"}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\n"}`, `{}`, `{"a":1e5}`, `[1]`, `{"a":"\xff"}`,
		`{"deps":[{"t":"]}\"[{"},{"u":[[],{}]}],"n":1}`, `{"a":[ 1, {"b" : "\\"} ],"c":{}}`, `{"a":{"b":"x\\\"]"},"z":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, compact, err := scanObject(b)
		if err == nil {
			tf, tc, terr := scanTrusted(b)
			if terr != nil || tc != compact || len(tf) != len(fields) {
				t.Fatalf("scanTrusted(%q) = %d fields, compact %v, err %v; scanObject %d fields, compact %v", b, len(tf), tc, terr, len(fields), compact)
			}
			for i := range tf {
				if tf[i].key != fields[i].key || string(tf[i].raw) != string(fields[i].raw) {
					t.Fatalf("scanTrusted(%q) field %d = %q: %s, scanObject %q: %s", b, i, tf[i].key, tf[i].raw, fields[i].key, fields[i].raw)
				}
			}
		}
		var obj map[string]json.RawMessage
		jerr := json.Unmarshal(b, &obj)
		isObj := jerr == nil && obj != nil
		if (err == nil) != isObj {
			// encoding/json replaces invalid UTF-8 in strings; the scanner
			// rejects it, so that no line is rewritten with lost bytes.
			if err != nil && isObj && !utf8.Valid(b) {
				return
			}
			t.Fatalf("scanObject err=%v, encoding/json err=%v for %q", err, jerr, b)
		}
	})
}
