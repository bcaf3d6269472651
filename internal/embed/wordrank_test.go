package embed_test

import (
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

func TestWordRank(t *testing.T) {
	t.Parallel()
	the, ok1 := embed.WordRank("the")
	db, ok2 := embed.WordRank("database")
	if !ok1 || !ok2 || the >= db {
		t.Errorf("rank(the) = %d %v, rank(database) = %d %v: want the more frequent word ranked first", the, ok1, db, ok2)
	}
	if _, ok := embed.WordRank("qzxqzxqzx"); ok {
		t.Error("an unknown word has a rank")
	}
}
