package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// indentJSON must write exactly what json.Indent writes, for anything
// encoding/json produces.
func TestIndentJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	values := []any{
		nil, true, 0, -1.5e300, "", "plain", `quote " and \ backslash`, "tab\tnew\nline \u2028 <&>",
		[]any{}, map[string]any{}, []any{[]any{}, map[string]any{}, []any{1}},
		map[string]any{"a": []any{1, "x", map[string]any{"b": nil, "c": []any{}}}, "{[,:]}": "{[,:]}"},
		struct {
			A []int          `json:"a"`
			B map[string]int `json:"b"`
			C *int           `json:"c"`
		}{A: []int{}, B: map[string]int{}},
	}
	for range 300 {
		values = append(values, randomValue(rng, 4))
	}
	for _, v := range values {
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, src); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indentJSON(%s)\n got %s\nwant %s", src, got, want.Bytes())
		}
		// A value copied from a file as written may hold white space
		// outside its strings: the result is the same.
		var spaced bytes.Buffer
		if err := json.Indent(&spaced, src, " ", "\t \r"); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, spaced.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indentJSON(%q)\n got %s\nwant %s", spaced.Bytes(), got, want.Bytes())
		}
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(7); {
	case depth == 0 || k == 0:
		return rng.IntN(1000) - 500
	case k == 1:
		var b strings.Builder
		const chars = "ab\"\\{}[],: \n\t\u2028é"
		for range rng.IntN(8) {
			b.WriteByte(chars[rng.IntN(len(chars))])
		}
		return b.String()
	case k == 2:
		return rng.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randomValue(rng, depth-1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[string(rune('a'+rng.IntN(26)))+`"{`] = randomValue(rng, depth-1)
		}
		return m
	}
}
