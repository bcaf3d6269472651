package audit

import (
	"bytes"
	"fmt"
	"testing"
)

// TestCommonPrefixAndSuffix puts the first difference on both sides of
// the chunk boundaries that commonPrefix and commonSuffix compare by.
func TestCommonPrefixAndSuffix(t *testing.T) {
	base := bytes.Repeat([]byte("abcdefghij"), 1000) // 10,000 bytes
	for _, at := range []int{0, 1, compareChunk - 1, compareChunk, compareChunk + 1, 2*compareChunk + 7, len(base) - 1} {
		t.Run(fmt.Sprintf("difference at %d", at), func(t *testing.T) {
			b := bytes.Clone(base)
			b[at] = 'X'
			if got := commonPrefix(base, b); got != at {
				t.Errorf("commonPrefix = %d, want %d", got, at)
			}
			if got, want := commonSuffix(base, b), len(base)-1-at; got != want {
				t.Errorf("commonSuffix = %d, want %d", got, want)
			}
		})
	}
	t.Run("one a prefix of the other", func(t *testing.T) {
		if got := commonPrefix(base, base[:compareChunk+3]); got != compareChunk+3 {
			t.Errorf("commonPrefix = %d, want %d", got, compareChunk+3)
		}
		if got := commonSuffix(base, base[len(base)-compareChunk-3:]); got != compareChunk+3 {
			t.Errorf("commonSuffix = %d, want %d", got, compareChunk+3)
		}
		if got := commonSuffix(base, base); got != len(base) {
			t.Errorf("commonSuffix of equal = %d, want %d", got, len(base))
		}
	})
}
