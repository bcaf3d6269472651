package ids

import "testing"

func TestFact(t *testing.T) {
	t.Parallel()
	a := Fact("pitfalls", "Never call time.Now in domain code.")
	if got := Fact("pitfalls", "Never call time.Now in domain code."); got != a {
		t.Fatalf("same input gave %q then %q", a, got)
	}
	if got := Fact("pitfalls", "  Never call time.Now\n   in domain code.  "); got != a {
		t.Errorf("re-wrapped text changed the id: %q vs %q", got, a)
	}
	if got := Fact("invariants", "Never call time.Now in domain code."); got == a {
		t.Errorf("another category gave the same id %q", got)
	}
	if got := Fact("pitfalls", "Never call time.Now in CLI code."); got == a {
		t.Errorf("other words gave the same id %q", got)
	}
	if len(a) != len(FactPrefix)+FactIDLen || a[:2] != FactPrefix {
		t.Errorf("id %q is not %s + %d digits", a, FactPrefix, FactIDLen)
	}
	// Pinned so that a change of the derivation, which would re-id every
	// fact in every ledger, cannot happen by accident.
	if want := "f-d57s5sc"; a != want {
		t.Errorf("derivation changed: %q, want %q", a, want)
	}
}

func TestBase36(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []byte
		n    int
		want string
	}{
		{[]byte{0}, 3, "000"},
		{[]byte{35}, 2, "0z"},
		{[]byte{36}, 2, "10"},
		{[]byte{0x01, 0x00}, 4, "0074"},
	}
	for _, c := range cases {
		if got := Base36(c.in, c.n); got != c.want {
			t.Errorf("Base36(%v, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	// Both paths (uint64 up to 10 digits, big.Int above) agree.
	data := []byte{0x9a, 0x01, 0xff, 0x37, 0x42, 0x00, 0x13, 0xee, 0x8b, 0x5c, 0x21, 0x07}
	long := Base36(data, 20)
	for n := 1; n <= 12; n++ {
		if got := Base36(data, n); got != long[20-n:] {
			t.Errorf("Base36(data, %d) = %q, want %q", n, got, long[20-n:])
		}
	}
	// 0xffffff = 16777215 = "9zldr" in base 36.
	if got := Base36([]byte{0xff, 0xff, 0xff}, 2); got != "dr" {
		t.Errorf("Base36 keeps the least significant digits: got %q, want %q", got, "dr")
	}
}

func TestNormalizeSpace(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                  "",
		"  a  ":             "a",
		"a\n\t b":           "a b",
		"a\u00a0b":          "a b",
		"one  two\r\nthree": "one two three",
	} {
		if got := NormalizeSpace(in); got != want {
			t.Errorf("NormalizeSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"f-abc1234": true, "arch.1": true, "A_b": true,
		"": false, "-x": false, "a b": false, "é": false, "a>b": false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}
