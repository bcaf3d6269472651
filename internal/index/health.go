package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Health is what Verify finds of the index in a directory.
type Health struct {
	Present bool // the index database exists
	// Damage says why the index cannot be used as it is (the database
	// fails SQLite's check, a word index segment is cut short or does
	// not match its checksum); "" when it is sound. The next Open
	// rebuilds a damaged index; so does Rebuild.
	Damage string
	// Embedder is the embedder the vectors were made by, as recorded.
	Embedder string
	// Docs counts the documents; Vectors those with a vector of Embedder.
	Docs, Vectors int
}

// Verify checks the index in dir without its lock and without changing
// anything: SQLite's quick_check of the database, the documents and their
// vectors, and the checksum of every word index segment (as Open checks
// them). It reads the whole word index and the database's pages, so it
// costs what an Open costs, not what Check costs. An index that cannot be
// read at all is damaged, not an error: the error is for a directory that
// cannot be looked at.
func Verify(ctx context.Context, dir string) (Health, error) {
	db, dbPath, err := openReadOnly(dir)
	if db == nil || err != nil {
		return Health{Present: err != nil && dbPath != ""}, err
	}
	defer db.Close()
	h := Health{Present: true}
	var ok string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&ok); err != nil {
		h.Damage = fmt.Sprintf("the database %s cannot be read: %v", dbPath, err)
		return h, nil
	}
	if ok != "ok" {
		h.Damage = fmt.Sprintf("the database %s is damaged: %s", dbPath, ok)
		return h, nil
	}
	err = db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key='embedder'), ''),
  (SELECT count(*) FROM docs),
  (SELECT count(*) FROM vectors WHERE model = coalesce((SELECT value FROM meta WHERE key='embedder'), ''))`).
		Scan(&h.Embedder, &h.Docs, &h.Vectors)
	if err != nil {
		h.Damage = fmt.Sprintf("the database %s cannot be read: %v", dbPath, err)
		return h, nil
	}
	bm := filepath.Join(dir, bleveName)
	if _, err := os.Stat(bm); err != nil {
		h.Damage = fmt.Sprintf("the word index %s is missing", bm)
		return h, nil
	}
	if err := verifySegments(bm); err != nil {
		h.Damage = err.Error()
	}
	return h, nil
}
