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
)

// UpdateStats says what Update did.
type UpdateStats struct {
	// Files the sources list; Read of them were re-read and parsed;
	// Removed files are gone (their documents with them).
	Files   int `json:"files"`
	Read    int `json:"read"`
	Removed int `json:"removed"`
	// Skipped files could not be parsed; their documents stay as they
	// were until they can.
	Skipped int `json:"skipped"`
	// Documents added, changed and deleted; Docs in the index after.
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Deleted int `json:"deleted"`
	Docs    int `json:"docs"`
	// Embedded vectors made; Missing documents still without one (the
	// embedder failed: a later Update fills them).
	Embedded int `json:"embedded"`
	Missing  int `json:"missing"`
	// Refit: the built-in embedder was fitted to the corpus again, and
	// every vector re-made.
	Refit bool `json:"refit"`
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
	known, err := x.knownFiles()
	if err != nil {
		return st, err
	}
	var (
		seen    = map[string]bool{}
		changed []changedFile
		touched []fileUpdate // size/mtime/hash to record
	)
	for _, src := range sources {
		files, err := src.Files(root)
		if err != nil {
			return st, err
		}
		for _, rel := range files {
			if seen[rel] {
				continue
			}
			seen[rel] = true
			st.Files++
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
			if errors.Is(err, fs.ErrNotExist) {
				seen[rel] = false
				continue
			}
			if err != nil {
				return st, err
			}
			old, ok := known[rel]
			if ok && old.size == fi.Size() && old.mtime == fi.ModTime().UnixNano() && old.kind == src.Kind() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return st, err
			}
			sum := sha256.Sum256(data)
			fu := fileUpdate{path: rel, row: fileRow{kind: src.Kind(), size: fi.Size(), mtime: fi.ModTime().UnixNano(), hash: hex.EncodeToString(sum[:16])}, data: data}
			if ok && old.hash == fu.row.hash && old.kind == src.Kind() {
				touched = append(touched, fu)
				continue
			}
			docs, err := src.Docs(rel, data)
			if err != nil {
				// A file that cannot be read keeps the documents it had
				// and is tried again next time; the rest of the index
				// is still brought up to date.
				x.notice(fmt.Sprintf("recall index: %s is left as it was: %v", rel, err))
				st.Skipped++
				continue
			}
			touched = append(touched, fu)
			st.Read++
			changed = append(changed, changedFile{path: rel, docs: docs})
		}
	}
	var removed []string
	for p := range known {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	sort.Strings(removed)
	st.Removed = len(removed)

	if len(changed) > 0 || len(removed) > 0 || len(touched) > 0 {
		if err := x.apply(changed, removed, touched, &st); err != nil {
			return st, err
		}
	}
	if err := x.updateProvenance(root, touched, seen); err != nil {
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
func (x *Index) updateProvenance(root string, touched []fileUpdate, seen map[string]bool) error {
	if x.opts.Repo == nil {
		return nil
	}
	head := x.opts.Repo.Head()
	last, err := x.meta("head")
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	if head != last {
		for p, ok := range seen {
			if !ok {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				continue
			}
			files[p] = data
		}
	} else {
		for _, t := range touched {
			files[t.path] = t.data
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
	for p := range files {
		c := ""
		if committed[p] {
			c = head
		}
		if _, err := tx.Exec(`UPDATE files SET commit_id = ? WHERE path = ?`, c, p); err != nil {
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
func (x *Index) apply(changed []changedFile, removed []string, touched []fileUpdate, st *UpdateStats) error {
	if err := x.setMeta("dirty", "1"); err != nil {
		return err
	}
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	batch := x.bm.NewBatch()

	// Deletions first: a document that moved to another file is deleted
	// from the old one and then written again.
	byFile := func(file string) (map[string]docRow, error) {
		rows, err := tx.Query(`SELECT n, id, hash FROM docs WHERE file = ?`, file)
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
	del := func(id string, n int64) error {
		if _, err := tx.Exec(`DELETE FROM docs WHERE n = ?`, n); err != nil {
			return err
		}
		if err := dropVector(tx, n); err != nil {
			return err
		}
		batch.Delete(id)
		st.Deleted++
		return nil
	}
	for _, p := range removed {
		old, err := byFile(p)
		if err != nil {
			return err
		}
		for id, r := range old {
			if err := del(id, r.n); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`DELETE FROM files WHERE path = ?`, p); err != nil {
			return err
		}
	}
	type pending struct {
		doc   *Doc
		hash  string
		isNew bool
	}
	var writes []pending
	seenID := map[string]bool{}
	for _, c := range changed {
		old, err := byFile(c.path)
		if err != nil {
			return err
		}
		keep := map[string]bool{}
		for i := range c.docs {
			d := &c.docs[i]
			if seenID[d.ID] {
				continue // the same id twice: the first wins
			}
			seenID[d.ID] = true
			h := d.hash()
			if r, ok := old[d.ID]; ok {
				keep[d.ID] = true
				if r.hash == h {
					continue
				}
				writes = append(writes, pending{d, h, false})
				continue
			}
			writes = append(writes, pending{d, h, true})
		}
		for id, r := range old {
			if !keep[id] {
				if err := del(id, r.n); err != nil {
					return err
				}
			}
		}
	}
	upsert, err := tx.Prepare(`INSERT INTO docs(id, kind, ref, title, body, file, line, category, status, labels, priority, approved, created, files, hash)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET kind=excluded.kind, ref=excluded.ref, title=excluded.title, body=excluded.body, file=excluded.file,
  line=excluded.line, category=excluded.category, status=excluded.status, labels=excluded.labels, priority=excluded.priority,
  approved=excluded.approved, created=excluded.created, files=excluded.files, hash=excluded.hash
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
			joinList(d.Labels), d.Priority, approved, created, joinList(d.Files), w.hash).Scan(&n); err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
		if err := dropVector(tx, n); err != nil {
			return err
		}
		if err := batch.Index(d.ID, bleveDoc(d)); err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
		if batch.Size() >= bleveBatch {
			// Bleve holds a batch's analysed documents in memory; apply
			// it in parts to bound a large build's memory.
			if err := x.bm.Batch(batch); err != nil {
				return fmt.Errorf("update the word index: %w", err)
			}
			batch.Reset()
		}
		if w.isNew {
			st.Added++
		} else {
			st.Changed++
		}
	}
	for _, t := range touched {
		if _, err := tx.Exec(`INSERT INTO files(path, kind, size, mtime, hash) VALUES(?, ?, ?, ?, ?)
ON CONFLICT(path) DO UPDATE SET kind=excluded.kind, size=excluded.size, mtime=excluded.mtime, hash=excluded.hash`,
			t.path, t.row.kind, t.row.size, t.row.mtime, t.row.hash); err != nil {
			return err
		}
	}
	var docs int
	if err := tx.QueryRow(`SELECT count(*) FROM docs`).Scan(&docs); err != nil {
		return err
	}
	if err := setMeta(tx, "docs", strconv.Itoa(docs)); err != nil {
		return err
	}
	if batch.Size() > 0 {
		if err := x.bm.Batch(batch); err != nil {
			return fmt.Errorf("update the word index: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return x.setMeta("dirty", "0")
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
