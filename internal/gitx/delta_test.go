package gitx

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// TestApplyDelta applies deltas made by go-git's encoder between versions
// of a text (lines changed, added and removed; a result of another size;
// copies over 64 KiB) and checks the result, and that a delta cut short
// or made for another base is refused.
func TestApplyDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			b.WriteString("line ")
			for range 1 + rng.IntN(60) {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			b.WriteByte(byte('0' + i%10))
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	base := text(5000)
	for _, tc := range []struct {
		name   string
		target []byte
	}{
		{"same", bytes.Clone(base)},
		{"a line changed", bytes.Replace(base, []byte("line "), []byte("LINE "), 1)},
		{"lines added in the middle", append(append(bytes.Clone(base[:len(base)/2]), text(50)...), base[len(base)/2:]...)},
		{"cut to a third", bytes.Clone(base[len(base)/3 : 2*len(base)/3])},
		{"all new", text(100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			delta := packfile.DiffDelta(base, tc.target)
			got, err := applyDelta(base, delta)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.target) {
				t.Fatalf("got %d bytes, want %d", len(got), len(tc.target))
			}
			if cap(got) != len(got) {
				t.Errorf("capacity %d for %d bytes", cap(got), len(got))
			}
			for _, bad := range []struct {
				name        string
				base, delta []byte
			}{
				{"cut short", base, delta[:len(delta)-1]},
				{"another base", base[1:], delta},
				{"empty", base, nil},
			} {
				if _, err := applyDelta(bad.base, bad.delta); !errors.Is(err, errBadDelta) {
					t.Errorf("%s: got %v, want errBadDelta", bad.name, err)
				}
			}
		})
	}
}

// TestApplyDeltaCopyOf64KiB: a copy command with no size bytes copies
// 0x10000 bytes, as git writes it (go-git's encoder never does).
func TestApplyDeltaCopyOf64KiB(t *testing.T) {
	base := bytes.Repeat([]byte("0123456789abcdef"), 0x10000/16+1) // 0x10010 bytes
	// base size 0x10010, result size 0x10001, copy 0x10000 at 0x10, insert "x".
	delta := []byte{0x90, 0x80, 0x04, 0x81, 0x80, 0x04, 0x81, 0x10, 0x01, 'x'}
	got, err := applyDelta(base, delta)
	if err != nil {
		t.Fatal(err)
	}
	want := append(bytes.Clone(base[0x10:0x10010]), 'x')
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}
