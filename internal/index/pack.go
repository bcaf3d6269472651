package index

import (
	"context"
	"encoding/binary"
	"fmt"
)

// Vector packs: the vectors again, 1,024 to a row, for the unfiltered
// dense scan. Scanning ten rows instead of ten thousand spends the time
// on dot products rather than on SQLite's per-row work. The packs are
// derived from the vectors table. Documents whose vector changed since
// the packs were written are listed in vdirty: the scan skips them in the
// packs and reads their current vector from the vectors table, so one
// edited fact does not rewrite every pack. When vdirty grows past a
// twentieth of the documents (at least 512), the packs are rebuilt. A
// filtered search reads the vectors table.
const packSize = 1024

// packStale marks every pack out of date (a refit re-made all vectors).
func (x *Index) packStale() error { return x.setMeta("pack_stale", "1") }

// rebuildPacks writes the packs from the vectors table when they are
// stale or too many documents are dirty.
func (x *Index) rebuildPacks(ctx context.Context, docs int) error {
	if x.emb == nil {
		return nil
	}
	stale, err := x.meta("pack_stale")
	if err != nil {
		return err
	}
	if stale == "0" {
		var dirty int
		if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM vdirty`).Scan(&dirty); err != nil {
			return err
		}
		if dirty <= max(512, docs/20) {
			return nil
		}
	}
	rows, err := x.db.QueryContext(ctx, `SELECT n, vec FROM vectors WHERE model = ? ORDER BY n`, x.emb.ID())
	if err != nil {
		return err
	}
	type pack struct{ ns, vecs []byte }
	var packs []pack
	cur := pack{}
	count := 0
	for rows.Next() {
		var n int64
		var vec []byte
		if err := rows.Scan(&n, &vec); err != nil {
			rows.Close()
			return err
		}
		cur.ns = binary.LittleEndian.AppendUint64(cur.ns, uint64(n))
		cur.vecs = binary.LittleEndian.AppendUint32(cur.vecs, uint32(len(vec)))
		cur.vecs = append(cur.vecs, vec...)
		if count++; count == packSize {
			packs = append(packs, cur)
			cur, count = pack{}, 0
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if count > 0 {
		packs = append(packs, cur)
	}
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM vpack`, `DELETE FROM vdirty`} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	for i, p := range packs {
		if _, err := tx.Exec(`INSERT INTO vpack(part, model, ns, vecs) VALUES(?, ?, ?, ?)`, i, x.emb.ID(), p.ns, p.vecs); err != nil {
			return err
		}
	}
	if err := setMeta(tx, "pack_stale", "0"); err != nil {
		return err
	}
	return tx.Commit()
}

// scanPack adds one pack's vectors to a scan's top k.
func (s *scan) scanPack(ns, vecs []byte) error {
	for i := 0; i+8 <= len(ns); i += 8 {
		if len(vecs) < 4 {
			return fmt.Errorf("recall index: a vector pack is truncated")
		}
		l := int(binary.LittleEndian.Uint32(vecs))
		if len(vecs) < 4+l {
			return fmt.Errorf("recall index: a vector pack is truncated")
		}
		n := int64(binary.LittleEndian.Uint64(ns[i:]))
		if s.dirty[n] {
			vecs = vecs[4+l:]
			continue
		}
		score := float64(s.q.dot(vecs[4 : 4+l]))
		vecs = vecs[4+l:]
		s.push(n, score)
	}
	return nil
}

type scored struct {
	n     int64
	score float64
}

// hitHeap is a min-heap: the weakest of the top k on top. Equal scores
// rank the lower n first, as the SQL path's ORDER BY s DESC, n does.
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	return h[i].score < h[j].score || h[i].score == h[j].score && h[i].n > h[j].n
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// better reports whether (score, n) beats the weakest kept.
func (h hitHeap) better(score float64, n int64) bool {
	w := h[0]
	return score > w.score || score == w.score && n < w.n
}
