package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/embed"
)

// fitState is the corpus the built-in embedder was fitted to. Vectors and
// queries use the same frozen statistics until the corpus drifts.
type fitState struct {
	docs      int
	component []float32
	df        map[string]int // nil until needed; then a cache of the df table
}

// drifted reports whether a corpus of n documents has moved far enough
// from the fitted one to fit again: by a quarter, and at least 20
// documents.
func (f *fitState) drifted(n int) bool {
	if f == nil {
		return n > 0
	}
	d := n - f.docs
	if d < 0 {
		d = -d
	}
	return d > max(20, f.docs/4)
}

func (x *Index) loadFit() error {
	fitter, ok := x.opts.Embedder.(embed.Fitter)
	if !ok {
		x.emb = x.opts.Embedder
		return nil
	}
	docs, err := x.meta("fit_docs")
	if err != nil {
		return err
	}
	if docs == "" {
		x.emb, x.fit = fitter, nil
		return nil
	}
	n, err := strconv.Atoi(docs)
	if err != nil {
		return fmt.Errorf("recall index: fit_docs %q: %w", docs, err)
	}
	comp, err := x.meta("fit_component")
	if err != nil {
		return err
	}
	x.useFit(fitter, &fitState{docs: n, component: parseFloats(comp)})
	return nil
}

// dfLookup reads document frequencies, one query per new word.
func (x *Index) dfLookup(w string) int {
	x.dfMu.Lock()
	defer x.dfMu.Unlock()
	if x.fit.df == nil {
		x.fit.df = map[string]int{}
	}
	if n, ok := x.fit.df[w]; ok {
		return n
	}
	var n int
	if err := x.db.QueryRow(`SELECT n FROM df WHERE word = ?`, w).Scan(&n); err != nil {
		n = 0
	}
	x.fit.df[w] = n
	return n
}

// preloadDF reads the whole df table, for embedding many documents.
func (x *Index) preloadDF() error {
	rows, err := x.db.Query(`SELECT word, n FROM df`)
	if err != nil {
		return err
	}
	defer rows.Close()
	df := map[string]int{}
	for rows.Next() {
		var w string
		var n int
		if err := rows.Scan(&w, &n); err != nil {
			return err
		}
		df[w] = n
	}
	x.fit.df = df
	return rows.Err()
}

// refitIfDrifted fits the built-in embedder to the corpus again when it has
// drifted: document frequencies, then the common component, then every
// vector is made again (by embedMissing).
func (x *Index) refitIfDrifted(ctx context.Context, n int, st *UpdateStats) error {
	fitter, ok := x.opts.Embedder.(embed.Fitter)
	if !ok || !x.fit.drifted(n) {
		return nil
	}
	texts, err := x.allTexts(ctx)
	if err != nil {
		return err
	}
	df := map[string]int{}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, w := range embed.Words(t) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	lookup := func(w string) int { return df[w] }
	plain := fitter.Fit(embed.Corpus{Docs: len(texts), DF: lookup})
	var parts [][]float32
	for _, t := range texts {
		if p, ok := plain.WordPart(t); ok {
			parts = append(parts, p)
		}
	}
	comp := embed.FitComponent(parts)

	f := &fitState{docs: len(texts), component: comp, df: df}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM df`, `DELETE FROM vectors`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	if err := writeFit(tx, f); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	x.useFit(fitter, f)
	st.Refit = true
	return nil
}

func (x *Index) allTexts(ctx context.Context) ([]string, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT title, body FROM docs ORDER BY n`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d Doc
		if err := rows.Scan(&d.Title, &d.Body); err != nil {
			return nil, err
		}
		out = append(out, d.Text())
	}
	return out, rows.Err()
}

// embedMissing makes the vectors documents lack. When the embedder fails
// it stops (the next batches would fail alike), says so and leaves them
// for a later Update: recall falls back to words meanwhile.
func (x *Index) embedMissing(ctx context.Context, st *UpdateStats) error {
	if x.emb == nil {
		return nil
	}
	rows, err := x.db.QueryContext(ctx, `SELECT d.n, d.title, d.body FROM docs d LEFT JOIN vectors v ON v.n = d.n AND v.model = ? WHERE v.n IS NULL ORDER BY d.n`, x.emb.ID())
	if err != nil {
		return err
	}
	var ns []int64
	var texts []string
	for rows.Next() {
		var n int64
		var d Doc
		if err := rows.Scan(&n, &d.Title, &d.Body); err != nil {
			rows.Close()
			return err
		}
		ns = append(ns, n)
		texts = append(texts, d.Text())
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ns) == 0 {
		return x.setMeta("missing", "0")
	}
	if x.fit != nil && len(ns) > 50 && x.fit.df == nil {
		if err := x.preloadDF(); err != nil {
			return err
		}
	}
	// Each batch is embedded with no transaction open (the embedder may
	// read document frequencies), then written in one.
	const batch = 256
	var embedErr error
	for i := 0; i < len(texts); i += batch {
		j := min(i+batch, len(texts))
		vecs, err := x.emb.Embed(ctx, texts[i:j])
		if err == nil && len(vecs) != j-i {
			err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), j-i)
		}
		if err != nil {
			embedErr = err
			break
		}
		if err := x.writeVectors(ns[i:j], vecs); err != nil {
			return err
		}
		st.Embedded += len(vecs)
	}
	st.Missing = len(ns) - st.Embedded
	if err := x.setMeta("missing", strconv.Itoa(st.Missing)); err != nil {
		return err
	}
	if embedErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		st.EmbedErr = embedErr
		// A guarded embedder's failure is remembered, and the query that
		// meets it next says so, once (recall's warning): saying it here
		// too would make two lines of one failure on every recall.
		var down *embed.DownError
		if errors.As(embedErr, &down) {
			return nil
		}
		x.notice(fmt.Sprintf("embedder %s failed (%v); %d documents have no vector yet, recall uses words for them until a later run", x.emb.ID(), embedErr, st.Missing))
	}
	return nil
}

func (x *Index) writeVectors(ns []int64, vecs [][]float32) error {
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT OR REPLACE INTO vectors(n, model, vec) VALUES(?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	dirty, err := tx.Prepare(`INSERT OR IGNORE INTO vdirty(n) VALUES(?)`)
	if err != nil {
		return err
	}
	defer dirty.Close()
	for k, v := range vecs {
		if _, err := ins.Exec(ns[k], x.emb.ID(), encodeVector(v)); err != nil {
			return err
		}
		if _, err := dirty.Exec(ns[k]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// encodeVector stores a vector as int8 with a scale: 4 bytes of float32
// scale, then one byte per number.
func encodeVector(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	scale := m / 127
	if scale == 0 {
		scale = 1
	}
	b := make([]byte, 4+len(v))
	binary.LittleEndian.PutUint32(b, math.Float32bits(scale))
	for i, x := range v {
		b[4+i] = byte(int8(math.Round(float64(x / scale))))
	}
	return b
}

// qvec is a query vector quantised like the stored ones, so that a dot
// product is a loop over integers.
type qvec struct {
	q     []int8
	scale float32
}

func newQVec(v []float32) *qvec {
	b := encodeVector(v)
	q := &qvec{q: make([]int8, len(v)), scale: math.Float32frombits(binary.LittleEndian.Uint32(b))}
	for i := range q.q {
		q.q[i] = int8(b[4+i])
	}
	return q
}

// dot is the dot product of the query with a stored vector.
func (q *qvec) dot(b []byte) float32 {
	if len(b) != 4+len(q.q) {
		return 0
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b)) * q.scale
	b = b[4 : 4+len(q.q)]
	qq := q.q[:len(b)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(qq); i += 4 {
		s0 += int32(qq[i]) * int32(int8(b[i]))
		s1 += int32(qq[i+1]) * int32(int8(b[i+1]))
		s2 += int32(qq[i+2]) * int32(int8(b[i+2]))
		s3 += int32(qq[i+3]) * int32(int8(b[i+3]))
	}
	for ; i < len(qq); i++ {
		s0 += int32(qq[i]) * int32(int8(b[i]))
	}
	return float32(s0+s1+s2+s3) * scale
}

func formatFloats(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return strings.Join(parts, ",")
}

func parseFloats(s string) []float32 {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]float32, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil {
			return nil
		}
		out[i] = float32(f)
	}
	return out
}

// Rebuild empties the index, under the lock it holds, so that the next
// Update builds it again from the files. The built-in embedder's fit (its
// document count, document frequencies and common component) is kept when
// the index had one: vectors are made with the statistics the index was
// using, so recall answers the same before and after a rebuild. Update
// still fits again when the corpus has drifted from it, as it would have
// without the rebuild.
func (x *Index) Rebuild(ctx context.Context) error {
	var kept *fitState
	if x.fit != nil {
		// A damaged index is what a rebuild is for: a fit that cannot be
		// read is fitted afresh instead.
		if err := x.preloadDF(); err != nil {
			x.notice("rebuilding the recall index without its fit, which cannot be read: " + err.Error())
		} else {
			kept = x.fit
		}
	}
	if err := x.recreate(); err != nil {
		return err
	}
	fitter, ok := x.opts.Embedder.(embed.Fitter)
	if kept == nil || !ok {
		return x.loadFit()
	}
	return x.storeFit(ctx, fitter, kept)
}

// storeFit writes a fit into the index and makes it the embedder's.
func (x *Index) storeFit(ctx context.Context, fitter embed.Fitter, f *fitState) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := writeFit(tx, f); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	x.useFit(fitter, f)
	return nil
}

// writeFit records a fit: the document frequencies and the meta keys that
// loadFit reads.
func writeFit(tx *sql.Tx, f *fitState) error {
	ins, err := tx.Prepare(`INSERT INTO df(word, n) VALUES(?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for w, c := range f.df {
		if _, err := ins.Exec(w, c); err != nil {
			return err
		}
	}
	for k, v := range map[string]string{"fit_docs": strconv.Itoa(f.docs), "fit_component": formatFloats(f.component)} {
		if err := setMeta(tx, k, v); err != nil {
			return err
		}
	}
	return nil
}

// useFit makes f the fit that vectors and queries are made with.
func (x *Index) useFit(fitter embed.Fitter, f *fitState) {
	x.fit = f
	x.emb = fitter.Fit(embed.Corpus{Docs: f.docs, DF: x.dfLookup, Component: f.component})
}
