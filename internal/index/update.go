package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/blevesearch/bleve/v2"
)

// UpdateStats says what Update did.
type UpdateStats struct {
	// Files the sources list; Read of them were re-read and parsed;
	// Removed files are gone (their documents with them).
	Files   int
	Read    int
	Removed int
	// Skipped files could not be parsed; their documents stay as they
	// were until they can.
	Skipped int
	// Documents added, changed and deleted; Docs in the index after.
	Added   int
	Changed int
	Deleted int
	Docs    int
	// Embedded vectors made; Missing documents still without one (the
	// embedder failed: a later Update fills them).
	Embedded int
	Missing  int
	// EmbedErr is why the embedder failed, if it did.
	EmbedErr error
	// Refit: the built-in embedder was fitted to the corpus again, and
	// every vector re-made.
	Refit bool
}

// bleveBatch is how many documents go to Bleve at once.
const bleveBatch = 1000

type fileRow struct {
	kind        string
	size, mtime int64
	hash        string
}

type docRow struct {
	n    int64
	hash string
}

// Update brings the index up to date with the files under root.
func (x *Index) Update(ctx context.Context, root string, sources []Source) (UpdateStats, error) {
	var st UpdateStats
	p, err := x.plan(root, sources, &st)
	if err != nil {
		return st, err
	}
	if len(p.changed) > 0 || len(p.removed) > 0 || len(p.touched) > 0 {
		if err := x.apply(p, &st); err != nil {
			return st, err
		}
	}
	if err := x.updateProvenance(root, p); err != nil {
		return st, err
	}
	// The document count and the number of documents without a vector
	// are kept in meta, so that an index with nothing to do costs no scan.
	if err := x.db.QueryRow(`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'docs'), (SELECT count(*) FROM docs))`).Scan(&st.Docs); err != nil {
		return st, err
	}
	if err := x.refitIfDrifted(ctx, st.Docs, &st); err != nil {
		return st, err
	}
	missing, err := x.metaInt("missing")
	if err != nil {
		return st, err
	}
	if st.Added+st.Changed > 0 || st.Refit || missing > 0 {
		if err := x.embedMissing(ctx, &st); err != nil {
			return st, err
		}
	}
	if st.Refit {
		if err := x.packStale(); err != nil {
			return st, err
		}
	}
	if err := x.rebuildPacks(ctx, st.Docs); err != nil {
		return st, err
	}
	return st, nil
}

// updateProvenance records, per file, the commit HEAD points at when the
// file's content is exactly its blob there (else ""), for results'
// source.commit. Files changed in this update are checked; when HEAD has
// moved since the last update, every file is.
func (x *Index) updateProvenance(root string, p *plan) error {
	if x.opts.Repo == nil {
		return nil
	}
	head := x.opts.Repo.Head()
	last, err := x.meta("head")
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, t := range p.touched {
		files[t.path] = t.data
	}
	if head != last {
		// Every file, reading only those this update has not read.
		for path, exists := range p.seen {
			if _, read := files[path]; !exists || read || p.outside[path] {
				continue
			}
			if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path))); err == nil {
				files[path] = data
			}
		}
	}
	if len(files) == 0 {
		return nil
	}
	committed := x.opts.Repo.CommittedAt(head, files)
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for path := range files {
		if p.outside[path] {
			continue // never in a commit: its commit stays ""
		}
		c := ""
		if committed[path] {
			c = head
		}
		if _, err := tx.Exec(`UPDATE files SET commit_id = ? WHERE path = ?`, c, path); err != nil {
			return err
		}
	}
	if err := setMeta(tx, "head", head); err != nil {
		return err
	}
	return tx.Commit()
}

func (x *Index) metaInt(key string) (int, error) {
	v, err := x.meta(key)
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("recall index: meta %s = %q: %w", key, v, err)
	}
	return n, nil
}

// plan is what an update has to do: files whose documents changed, files
// whose size, mtime or hash to record, files gone, every file seen (true
// when it exists), and those of them outside the repository.
type plan struct {
	seen    map[string]bool
	outside map[string]bool
	changed []changedFile
	touched []fileUpdate
	removed []string
}

// plan compares the sources' files with what the index recorded: a file
// whose size and mtime are unchanged is skipped, one whose content hash is
// unchanged only recorded, and the rest parsed.
func (x *Index) plan(root string, sources []Source, st *UpdateStats) (*plan, error) {
	known, err := x.knownFiles()
	if err != nil {
		return nil, err
	}
	p := &plan{seen: map[string]bool{}, outside: map[string]bool{}}
	for _, src := range sources {
		files, err := src.Files(root)
		if err != nil {
			return nil, err
		}
		for _, rel := range files {
			if _, dup := p.seen[rel]; dup {
				continue
			}
			st.Files++
			if err := x.planFile(root, src, rel, known, p, st); err != nil {
				return nil, err
			}
		}
	}
	for path := range known {
		if !p.seen[path] {
			p.removed = append(p.removed, path)
		}
	}
	sort.Strings(p.removed)
	st.Removed = len(p.removed)
	return p, nil
}

func (x *Index) planFile(root string, src Source, rel string, known map[string]fileRow, p *plan, st *UpdateStats) error {
	full, outside := sourcePath(root, src, rel)
	if outside {
		p.outside[rel] = true
	}
	fi, err := os.Stat(full)
	if errors.Is(err, fs.ErrNotExist) {
		p.seen[rel] = false
		return nil
	}
	if err != nil {
		return err
	}
	p.seen[rel] = true
	old, ok := known[rel]
	ok = ok && old.kind == src.Kind()
	if ok && old.size == fi.Size() && old.mtime == fi.ModTime().UnixNano() {
		return nil
	}
	data, err := os.ReadFile(full)
	if _, outside := src.(OutsideSource); err != nil && outside {
		// The person's own file (preferences): one they cannot read
		// must not stop recall over the repository.
		x.notice(fmt.Sprintf("recall index: %s is left as it was: %v", rel, err))
		st.Skipped++
		return nil
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	fu := fileUpdate{path: rel, row: fileRow{kind: src.Kind(), size: fi.Size(), mtime: fi.ModTime().UnixNano(), hash: hex.EncodeToString(sum[:16])}, data: data}
	if ok && old.hash == fu.row.hash {
		p.touched = append(p.touched, fu)
		return nil
	}
	docs, err := src.Docs(rel, data)
	if err != nil {
		// A file that cannot be read keeps the documents it had and is
		// tried again next time; the rest of the index is still brought
		// up to date.
		x.notice(fmt.Sprintf("recall index: %s is left as it was: %v", rel, err))
		st.Skipped++
		return nil
	}
	p.touched = append(p.touched, fu)
	p.changed = append(p.changed, changedFile{path: rel, docs: docs})
	st.Read++
	return nil
}

type changedFile struct {
	path string
	docs []Doc
}

type fileUpdate struct {
	path string
	row  fileRow
	data []byte
}

func (x *Index) knownFiles() (map[string]fileRow, error) {
	rows, err := x.db.Query(`SELECT path, kind, size, mtime, hash FROM files`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]fileRow{}
	for rows.Next() {
		var p string
		var r fileRow
		if err := rows.Scan(&p, &r.kind, &r.size, &r.mtime, &r.hash); err != nil {
			return nil, err
		}
		out[p] = r
	}
	return out, rows.Err()
}

// apply writes the changes to both stores. The index is marked dirty
// while they disagree, so a crash in between makes the next Open rebuild.
func (x *Index) apply(p *plan, st *UpdateStats) error {
	if err := x.setMeta("dirty", "1"); err != nil {
		return err
	}
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	a := &applier{x: x, tx: tx, batch: x.bm.NewBatch(), st: st}
	// Deletions first: a document that moved to another file is deleted
	// from the old one and then written again.
	for _, path := range p.removed {
		if err := a.removeFile(path); err != nil {
			return err
		}
	}
	writes, err := a.diff(p.changed)
	if err != nil {
		return err
	}
	if err := a.write(writes); err != nil {
		return err
	}
	for _, t := range p.touched {
		if _, err := tx.Exec(`INSERT INTO files(path, kind, size, mtime, hash) VALUES(?, ?, ?, ?, ?)
ON CONFLICT(path) DO UPDATE SET kind=excluded.kind, size=excluded.size, mtime=excluded.mtime, hash=excluded.hash`,
			t.path, t.row.kind, t.row.size, t.row.mtime, t.row.hash); err != nil {
			return err
		}
	}
	var docs, words int
	if err := tx.QueryRow(`SELECT count(*), coalesce(sum(words), 0) FROM docs`).Scan(&docs, &words); err != nil {
		return err
	}
	if err := setMeta(tx, "docs", strconv.Itoa(docs)); err != nil {
		return err
	}
	if err := setMeta(tx, "words", strconv.Itoa(words)); err != nil {
		return err
	}
	if err := a.flush(0); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return x.setMeta("dirty", "0")
}

// applier writes one update's documents in a transaction and a Bleve
// batch.
type applier struct {
	x     *Index
	tx    *sql.Tx
	batch *bleve.Batch
	st    *UpdateStats
}

// pending is a document to write, new or changed.
type pending struct {
	doc   *Doc
	hash  string
	isNew bool
}

// docsOf returns the indexed documents of a file, by id.
func (a *applier) docsOf(file string) (map[string]docRow, error) {
	rows, err := a.tx.Query(`SELECT n, id, hash FROM docs WHERE file = ?`, file)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]docRow{}
	for rows.Next() {
		var id string
		var r docRow
		if err := rows.Scan(&r.n, &id, &r.hash); err != nil {
			return nil, err
		}
		m[id] = r
	}
	return m, rows.Err()
}

func (a *applier) delete(id string, n int64) error {
	if _, err := a.tx.Exec(`DELETE FROM docs WHERE n = ?`, n); err != nil {
		return err
	}
	if err := dropVector(a.tx, n); err != nil {
		return err
	}
	a.batch.Delete(id)
	a.st.Deleted++
	return nil
}

func (a *applier) removeFile(path string) error {
	old, err := a.docsOf(path)
	if err != nil {
		return err
	}
	for id, r := range old {
		if err := a.delete(id, r.n); err != nil {
			return err
		}
	}
	_, err = a.tx.Exec(`DELETE FROM files WHERE path = ?`, path)
	return err
}

// diff compares changed files' documents with the indexed ones: it
// deletes those gone and returns those new or changed.
func (a *applier) diff(changed []changedFile) ([]pending, error) {
	var writes []pending
	seenID := map[string]bool{}
	for _, c := range changed {
		old, err := a.docsOf(c.path)
		if err != nil {
			return nil, err
		}
		keep := map[string]bool{}
		for i := range c.docs {
			d := &c.docs[i]
			if seenID[d.ID] {
				continue // the same id twice: the first wins
			}
			seenID[d.ID] = true
			h := d.hash()
			r, ok := old[d.ID]
			if ok {
				keep[d.ID] = true
			}
			if !ok || r.hash != h {
				writes = append(writes, pending{d, h, !ok})
			}
		}
		for id, r := range old {
			if !keep[id] {
				if err := a.delete(id, r.n); err != nil {
					return nil, err
				}
			}
		}
	}
	return writes, nil
}

// write stores new and changed documents; their vectors are made after.
func (a *applier) write(writes []pending) error {
	upsert, err := a.tx.Prepare(`INSERT INTO docs(id, kind, ref, title, body, file, line, category, status, labels, priority, approved, created, files, hash, words)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET kind=excluded.kind, ref=excluded.ref, title=excluded.title, body=excluded.body, file=excluded.file,
  line=excluded.line, category=excluded.category, status=excluded.status, labels=excluded.labels, priority=excluded.priority,
  approved=excluded.approved, created=excluded.created, files=excluded.files, hash=excluded.hash, words=excluded.words
RETURNING n`)
	if err != nil {
		return err
	}
	defer upsert.Close()
	for _, w := range writes {
		d := w.doc
		var created int64
		if !d.Created.IsZero() {
			created = d.Created.Unix()
		}
		approved := 0
		if d.Approved {
			approved = 1
		}
		var n int64
		if err := upsert.QueryRow(d.ID, d.Kind, d.Ref, d.Title, d.Body, d.File, d.Line, d.Category, d.Status,
			joinList(d.Labels), d.Priority, approved, created, joinList(d.Files), w.hash, a.x.textLength(d)).Scan(&n); err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
		if err := dropVector(a.tx, n); err != nil {
			return err
		}
		if err := a.batch.Index(d.ID, bleveDoc(d)); err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
		// Bleve holds a batch's analysed documents in memory; apply it in
		// parts to bound a large build's memory.
		if err := a.flush(bleveBatch); err != nil {
			return err
		}
		if w.isNew {
			a.st.Added++
		} else {
			a.st.Changed++
		}
	}
	return nil
}

// flush sends the Bleve batch once it holds more than min operations.
func (a *applier) flush(min int) error {
	if a.batch.Size() == 0 || a.batch.Size() < min {
		return nil
	}
	if err := a.x.bm.Batch(a.batch); err != nil {
		return fmt.Errorf("update the word index: %w", err)
	}
	a.batch.Reset()
	return nil
}

// execer is a database or a transaction.
type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

func (x *Index) setMeta(key, value string) error { return setMeta(x.db, key, value) }

// setMeta records a meta value, in a transaction when e is one.
func setMeta(e execer, key, value string) error {
	_, err := e.Exec(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// dropVector forgets a document's vector and marks it dirty, so the
// packed scan reads it from the vectors table until the packs are rebuilt.
func dropVector(tx *sql.Tx, n int64) error {
	if _, err := tx.Exec(`DELETE FROM vectors WHERE n = ?`, n); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT OR IGNORE INTO vdirty(n) VALUES(?)`, n)
	return err
}

func (x *Index) meta(key string) (string, error) {
	var v string
	err := x.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}
