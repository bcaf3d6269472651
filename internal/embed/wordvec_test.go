package embed_test

import (
	"math"
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

func TestWordVec(t *testing.T) {
	t.Parallel()
	v, ok := embed.WordVec("database")
	if !ok || len(v) != 100 {
		t.Fatalf("WordVec(database) = %d numbers, %v", len(v), ok)
	}
	if n := embed.Dot(v, v); math.Abs(float64(n)-1) > 1e-4 {
		t.Errorf("|v|² = %v, want 1", n)
	}
	if _, ok := embed.WordVec("qzxqzxqzx"); ok {
		t.Error("an unknown word has a vector")
	}
	self, ok := embed.WordCos(v, "database")
	if !ok || math.Abs(self-1) > 1e-4 {
		t.Errorf("WordCos(database, database) = %v, %v; want 1", self, ok)
	}
	near, _ := embed.WordCos(v, "databases")
	far, _ := embed.WordCos(v, "banana")
	if !(near > far) || near < 0.5 {
		t.Errorf("cos(database, databases) = %.3f, cos(database, banana) = %.3f: want the plural much nearer", near, far)
	}
	if _, ok := embed.WordCos(v, "qzxqzxqzx"); ok {
		t.Error("WordCos of an unknown word is ok")
	}
	if _, ok := embed.WordCos(v[:50], "database"); ok {
		t.Error("WordCos of a vector of the wrong length is ok")
	}
}
