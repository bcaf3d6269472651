// Package index is recall's derived store: the documents memctl knows
// (facts, tasks, proposals, run digests, playbooks), their dense vectors
// in one SQLite database (modernc.org/sqlite, pure Go) and their words in
// one Bleve index scored with BM25.
//
// The index is a cache. It lives under <git-common-dir>/memctl/, never in
// the working tree, and is shared by linked worktrees. It records a format
// version and the embedder's id; when either differs, or a store cannot be
// read, Open throws the index away and builds it again, with one notice.
// "Cannot be read" includes what opens but is damaged: a database SQLite
// finds malformed, a Bleve segment whose checksum does not match, a
// snapshot Bleve had to skip, and stores that disagree on the number of
// documents (one of them half-written).
// Update brings it up to date incrementally: files whose size and mtime are
// unchanged are skipped, changed files are hashed and re-parsed, and only
// their changed documents are re-indexed.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// FormatVersion is the layout of the index; a different one is rebuilt.
//
//	1: first format (docs, files, vectors, df, meta; Bleve "bm25").
//	2: vector packs (vpack, vdirty) for the unfiltered dense scan.
//	3: docs.words and meta "words", the corpus statistics BM25 scores with.
const FormatVersion = 3

// File names inside the index directory.
const (
	dbName    = "index.db"
	bleveName = "bm25"
	lockName  = "index.lock"
)

// Options configure Open.
type Options struct {
	// Dir is the index directory, normally <git-common-dir>/memctl.
	Dir string
	// Embedder makes the dense vectors; nil indexes words only. An
	// embed.Fitter (the built-in embedder) is fitted to the corpus.
	Embedder embed.Embedder
	// Notice receives one-line messages for the user (a rebuild, an
	// embedder failure); nil drops them.
	Notice func(string)
	// LockWait is how long to wait for another memctl using the index.
	LockWait time.Duration
	// Repo, if set, gives results their commit: the HEAD whose tree
	// holds their file's content exactly.
	Repo *gitx.Repo
	// Holder, if its PID is set, is announced as the lock's holder, so
	// that a process that gives up waiting can say whom it waited for.
	Holder fsx.Holder
}

// Index is an open index. It is not safe for concurrent use; other memctl
// processes wait for its lock.
type Index struct {
	opts Options
	db   *sql.DB
	bm   bleve.Index
	lock *fsx.Lock
	emb  embed.Embedder // the embedder, fitted to the corpus when it can be
	fit  *fitState
	// dfMu guards fit.df's cache: a search embeds its query and weighs
	// the words of its word ranking at the same time.
	dfMu sync.Mutex
	// analyzer is Bleve's analyser of the text, for its length.
	analyzer analysis.Analyzer
}

// Open opens the index in opts.Dir, creating it if needed. An index of
// another format or embedder, or one that cannot be read, is rebuilt
// empty (Update fills it) after a notice.
func Open(ctx context.Context, opts Options) (*Index, error) {
	registerFunctions()
	if opts.LockWait == 0 {
		opts.LockWait = 30 * time.Second
	}
	if _, err := fsx.MkdirAll(opts.Dir); err != nil {
		return nil, err
	}
	lock, err := fsx.Acquire(ctx, filepath.Join(opts.Dir, lockName), opts.LockWait)
	if err != nil {
		return nil, err
	}
	if opts.Holder.PID != 0 {
		_ = lock.Announce(opts.Holder) // costs only the waiter's message
	}
	x := &Index{opts: opts, lock: lock}
	reason, err := x.openStores()
	if err != nil || reason != "" {
		if err != nil {
			reason = err.Error()
		}
		// One line: some of Bleve's errors go on with the file's content.
		reason, _, _ = strings.Cut(reason, "\n")
		x.notice("rebuilding the recall index: " + reason)
		if err := x.recreate(); err != nil {
			x.closeStores()
			lock.Release()
			return nil, err
		}
	}
	if err := x.loadFit(); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

func (x *Index) notice(msg string) {
	if x.opts.Notice != nil {
		x.opts.Notice(msg)
	}
}

// embedderID is what the index records of its embedder.
func (x *Index) embedderID() string {
	if x.opts.Embedder == nil {
		return "none"
	}
	return x.opts.Embedder.ID()
}

// openStores opens or creates both stores. A non-empty reason means they
// opened but belong to another format or embedder.
func (x *Index) openStores() (reason string, err error) {
	dbPath := filepath.Join(x.opts.Dir, dbName)
	_, statErr := os.Stat(dbPath)
	fresh := os.IsNotExist(statErr)
	x.db, err = sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(TRUNCATE)&_pragma=synchronous(OFF)&_pragma=mmap_size(268435456)")
	if err != nil {
		return "", err
	}
	// Two connections: a search reads the word ranking's candidates while
	// the dense scan holds the other. Writes are one transaction at a
	// time, and no read waits on a write of the same process.
	x.db.SetMaxOpenConns(2)
	if fresh {
		if err := x.createSchema(); err != nil {
			return "", err
		}
	} else {
		var format, emb string
		err := x.db.QueryRow(`SELECT (SELECT value FROM meta WHERE key='format'), (SELECT value FROM meta WHERE key='embedder')`).Scan(&format, &emb)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", dbPath, err)
		}
		if format != strconv.Itoa(FormatVersion) {
			return fmt.Sprintf("format %s, this memctl writes %d", format, FormatVersion), nil
		}
		if emb != x.embedderID() {
			return fmt.Sprintf("embedder changed from %s to %s", emb, x.embedderID()), nil
		}
		var dirty string
		if err := x.db.QueryRow(`SELECT coalesce((SELECT value FROM meta WHERE key='dirty'), '0')`).Scan(&dirty); err != nil {
			return "", fmt.Errorf("read %s: %w", dbPath, err)
		}
		if dirty == "1" {
			return "an update was interrupted", nil
		}
	}
	bmPath := filepath.Join(x.opts.Dir, bleveName)
	var bm bleve.Index
	if fresh {
		os.RemoveAll(bmPath)
		bm, err = bleve.New(bmPath, newMapping())
	} else {
		if err := verifySegments(bmPath); err != nil {
			return "", err
		}
		bm, err = openBleve(bmPath)
	}
	if err != nil {
		return "", fmt.Errorf("open %s: %w", bmPath, err)
	}
	x.bm = bm
	if !fresh {
		// The two stores are written together: a word index that holds
		// another number of documents than the database is one of them
		// half-written or rolled back.
		n, err := bm.DocCount()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", bmPath, err)
		}
		var docs uint64
		if err := x.db.QueryRow(`SELECT count(*) FROM docs`).Scan(&docs); err != nil {
			return "", fmt.Errorf("read %s: %w", dbPath, err)
		}
		if n != docs {
			return fmt.Sprintf("the word index holds %d documents, the database %d", n, docs), nil
		}
	}
	return "", nil
}

func (x *Index) createSchema() error {
	_, err := x.db.Exec(`
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL, hash TEXT NOT NULL, commit_id TEXT NOT NULL DEFAULT '');
CREATE TABLE docs(
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL, ref TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
  file TEXT NOT NULL, line INTEGER NOT NULL,
  category TEXT NOT NULL, status TEXT NOT NULL, labels TEXT NOT NULL, priority INTEGER NOT NULL,
  approved INTEGER NOT NULL, created INTEGER NOT NULL, files TEXT NOT NULL, hash TEXT NOT NULL,
  words INTEGER NOT NULL DEFAULT 0);
CREATE INDEX docs_file ON docs(file);
CREATE INDEX docs_words ON docs(words);
CREATE TABLE vectors(n INTEGER PRIMARY KEY, model TEXT NOT NULL, vec BLOB NOT NULL);
CREATE TABLE df(word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE vpack(part INTEGER PRIMARY KEY, model TEXT NOT NULL, ns BLOB NOT NULL, vecs BLOB NOT NULL);
CREATE TABLE vdirty(n INTEGER PRIMARY KEY);
INSERT INTO meta(key, value) VALUES('format', ?), ('embedder', ?);`, strconv.Itoa(FormatVersion), x.embedderID())
	return err
}

func (x *Index) closeStores() {
	if x.bm != nil {
		x.bm.Close()
		x.bm = nil
	}
	if x.db != nil {
		x.db.Close()
		x.db = nil
	}
}

func (x *Index) removeStores() error {
	for _, name := range []string{dbName, dbName + "-wal", dbName + "-shm", dbName + "-journal", bleveName} {
		if err := os.RemoveAll(filepath.Join(x.opts.Dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// recreate replaces the stores with empty ones: an Update then fills
// them from the files.
func (x *Index) recreate() error {
	x.closeStores()
	if err := x.removeStores(); err != nil {
		return err
	}
	reason, err := x.openStores()
	if err == nil && reason != "" {
		err = errors.New(reason)
	}
	if err != nil {
		return fmt.Errorf("create the recall index in %s: %w", x.opts.Dir, err)
	}
	return nil
}

// Close closes the stores and releases the lock.
func (x *Index) Close() error {
	x.closeStores()
	if x.lock != nil {
		err := x.lock.Release()
		x.lock = nil
		return err
	}
	return nil
}

// LockPath is the lock file of the index in dir, which Open takes.
func LockPath(dir string) string { return filepath.Join(dir, lockName) }

// Remove deletes an index directory's stores: the next Open builds anew.
func Remove(dir string) error {
	x := &Index{opts: Options{Dir: dir}}
	return x.removeStores()
}
