package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Freshness is how the index in a directory compares with the files, as
// Check finds it without the index's lock and without changing anything.
type Freshness struct {
	Present bool // the index database exists
	// Changed counts the source files added, removed, or changed in size
	// or modification time since the last update (a file only touched
	// counts: Update then reads it and finds it the same).
	Changed int
	// Rebuild, when set, says why the next Open rebuilds the index
	// (another format, an interrupted update).
	Rebuild string
}

// Check compares the index in dir with the files sources list under root.
// It opens the database read-only and stats the files, reading none, so
// it neither waits for nor disturbs another memctl using the index. It
// does not compare the embedder (a changed one also makes Open rebuild).
func Check(ctx context.Context, dir, root string, sources []Source) (Freshness, error) {
	db, dbPath, err := openReadOnly(dir)
	if db == nil || err != nil {
		return Freshness{Present: err != nil && dbPath != ""}, err
	}
	defer db.Close()
	f := Freshness{Present: true}
	var format, dirty string
	err = db.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key='format'), ''), coalesce((SELECT value FROM meta WHERE key='dirty'), '0')`).
		Scan(&format, &dirty)
	if err != nil {
		return f, fmt.Errorf("read %s: %w", dbPath, err)
	}
	switch {
	case format != strconv.Itoa(FormatVersion):
		f.Rebuild = fmt.Sprintf("format %s, this memctl writes %d", format, FormatVersion)
		return f, nil
	case dirty == "1":
		f.Rebuild = "an update was interrupted"
		return f, nil
	}
	x := &Index{db: db}
	known, err := x.knownFiles()
	if err != nil {
		return f, fmt.Errorf("read %s: %w", dbPath, err)
	}
	seen := map[string]bool{}
	for _, src := range sources {
		files, err := src.Files(root)
		if err != nil {
			return f, err
		}
		for _, rel := range files {
			if seen[rel] {
				continue
			}
			full, _ := sourcePath(root, src, rel)
			fi, err := os.Stat(full)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return f, err
			}
			seen[rel] = true
			old, ok := known[rel]
			if !ok || old.kind != src.Kind() || old.size != fi.Size() || old.mtime != fi.ModTime().UnixNano() {
				f.Changed++
			}
		}
	}
	for path := range known {
		if !seen[path] {
			f.Changed++
		}
	}
	return f, nil
}

// openReadOnly opens the index database in dir read-only, for looking
// without the index lock (Check, Verify). No database is a nil db and no
// error; a database that is there but cannot be opened is its path and
// the error; one that cannot be looked at is the error alone.
func openReadOnly(dir string) (db *sql.DB, dbPath string, err error) {
	dbPath = filepath.Join(dir, dbName)
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return nil, dbPath, nil
	} else if err != nil {
		return nil, "", err
	}
	db, err = sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_pragma=busy_timeout(1000)")
	if err != nil {
		return nil, dbPath, err
	}
	return db, dbPath, nil
}
