package app

import (
	"encoding/json"
	"testing"
)

// With writes counts, booleans, strings and id lists without
// encoding/json: the bytes must be encoding/json's.
func TestWithMatchesJSONMarshal(t *testing.T) {
	t.Parallel()
	values := []any{0, -7, 1 << 40, true, false, "", "bd-1", `q"uote`, `back\slash`, "<b>&", "é", "tab\t", "\u2028",
		[]string(nil), []string{}, []string{"bd-1", "bd-2"}, []string{"a", "<"}, []string{"é"},
		[]int{1}, map[string]int{"a": 1}, 1.5, nil}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := Object{}.With("k", v)[0].Raw
		if string(got) != string(want) {
			t.Errorf("With(%#v) = %s, want %s", v, got, want)
		}
	}
}
