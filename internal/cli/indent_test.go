package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/app"
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

// jsonArray and appendIndentedObject write in one pass what indenting
// the compact array writes: json.Indent is the reference.
func TestJSONArrayMatchesIndent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 44 {
		var objs []object
		count, big := n%7, n >= 40
		if big { // enough to be written in several pieces
			count = 300
		}
		for range count {
			var o object
			for range rng.IntN(6) {
				v := randomValue(rng, 3)
				if big {
					v = []any{v, strings.Repeat("x", 400)}
				}
				raw, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				key := []string{"id", "a\"b", "<k>", "é"}[rng.IntN(4)]
				o = append(o, app.Member{Key: key, Raw: raw})
			}
			objs = append(objs, o)
		}
		// The last cases are larger than the buffer: written in pieces.
		var got bytes.Buffer
		a := newJSONArray(&got)
		compact := []byte{'['}
		for i, o := range objs {
			a.add(o)
			if i > 0 {
				compact = append(compact, ',')
			}
			compact = app.Object(o).AppendJSON(compact)
		}
		if err := a.close(); err != nil {
			t.Fatal(err)
		}
		compact = append(compact, ']')
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", "  "); err != nil {
			t.Fatalf("%s: %v", compact, err)
		}
		want.WriteByte('\n')
		if got.String() != want.String() {
			t.Fatalf("jsonArray wrote\n%s\nwant\n%s", got.String(), want.String())
		}
		if len(objs) > 0 {
			var one bytes.Buffer
			if err := writeJSON(&one, objs[0]); err != nil {
				t.Fatal(err)
			}
			var want1 bytes.Buffer
			_ = json.Indent(&want1, app.Object(objs[0]).AppendJSON(nil), "", "  ")
			if one.String() != want1.String()+"\n" {
				t.Fatalf("writeJSON(object) wrote\n%s\nwant\n%s", one.String(), want1.String())
			}
		}
	}
}

// A long array goes out in pieces, each under the flush size plus one
// object, and still reads back as the same array.
func TestJSONArrayStreams(t *testing.T) {
	t.Parallel()
	w := &pieceWriter{}
	a := newJSONArray(w)
	o := object{{Key: "id", Raw: []byte(`"` + strings.Repeat("x", 1000) + `"`)}}
	for range 500 {
		a.add(o)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	if w.writes < 5 || w.max > jsonArrayFlush+2000 {
		t.Errorf("%d writes, largest %d bytes: want the array written in pieces", w.writes, w.max)
	}
	var back []map[string]string
	if err := json.Unmarshal(w.buf.Bytes(), &back); err != nil || len(back) != 500 {
		t.Errorf("read back %d objects, err %v", len(back), err)
	}
}

type pieceWriter struct {
	buf         bytes.Buffer
	writes, max int
}

func (w *pieceWriter) Write(p []byte) (int, error) {
	w.writes++
	w.max = max(w.max, len(p))
	return w.buf.Write(p)
}
