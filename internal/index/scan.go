package index

import (
	"container/heap"
	"context"
	"database/sql/driver"
	"sync"

	"modernc.org/sqlite"
)

// scan is one dense search in progress: the query and the best k so far.
// SQLite's functions memctl_dot and memctl_pack reach it by a handle, as
// they are passed integers, not Go values.
type scan struct {
	q     *qvec
	k     int
	top   hitHeap
	dirty map[int64]bool // documents whose packed vector is out of date
}

func (s *scan) push(n int64, score float64) {
	switch {
	case s.top.Len() < s.k:
		heap.Push(&s.top, scored{n, score})
	case s.top.better(score, n):
		s.top[0] = scored{n, score}
		heap.Fix(&s.top, 0)
	}
}

// best empties the heap into a ranking, best first.
func (s *scan) best() []scored {
	out := make([]scored, s.top.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&s.top).(scored)
	}
	return out
}

var (
	scansMu sync.Mutex
	scans   = map[int64]*scan{}
	scanN   int64
)

func beginScan(q []float32, k int) (int64, *scan) {
	scansMu.Lock()
	defer scansMu.Unlock()
	scanN++
	s := &scan{q: newQVec(q), k: k}
	scans[scanN] = s
	return scanN, s
}

func endScan(h int64) {
	scansMu.Lock()
	delete(scans, h)
	scansMu.Unlock()
}

func scanFor(h int64) *scan {
	scansMu.Lock()
	defer scansMu.Unlock()
	return scans[h]
}

// scanRows pushes the dot product of every vector a query selects; from
// is its FROM clause, naming the vectors table v, with the model as its
// first parameter.
func (x *Index) scanRows(ctx context.Context, h int64, s *scan, from string, args ...any) error {
	rows, err := x.db.QueryContext(ctx, `SELECT v.n, memctl_dot(v.vec, ?) `+from, append([]any{h, x.emb.ID()}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		var score float64
		if err := rows.Scan(&n, &score); err != nil {
			return err
		}
		s.push(n, score)
	}
	return rows.Err()
}

// scanPacks pushes every packed vector not marked dirty, then the dirty
// documents' current vectors.
func (x *Index) scanPacks(ctx context.Context, h int64, s *scan) error {
	rows, err := x.db.QueryContext(ctx, `SELECT n FROM vdirty`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		if s.dirty == nil {
			s.dirty = map[int64]bool{}
		}
		s.dirty[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT count(memctl_pack(ns, vecs, ?)) FROM vpack WHERE model = ?`, h, x.emb.ID()).Scan(&n); err != nil {
		return err
	}
	if len(s.dirty) == 0 {
		return nil
	}
	return x.scanRows(ctx, h, s, `FROM vdirty d JOIN vectors v ON v.n = d.n WHERE v.model = ?`)
}

var registerOnce sync.Once

// registerFunctions adds to the SQLite driver memctl_dot(vec, handle), the
// dot product of a stored vector with the scan's query, and
// memctl_pack(ns, vecs, handle), which feeds a pack of vectors to the
// scan. Their blobs are views of SQLite's pages (VolatileArgs), never kept.
func registerFunctions() {
	registerOnce.Do(func() {
		sqlite.MustRegisterFunction("memctl_dot", &sqlite.FunctionImpl{
			NArgs:        2,
			VolatileArgs: true,
			Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				b, _ := args[0].([]byte)
				h, _ := args[1].(int64)
				s := scanFor(h)
				if s == nil {
					return float64(0), nil
				}
				return float64(s.q.dot(b)), nil
			},
		})
		sqlite.MustRegisterFunction("memctl_pack", &sqlite.FunctionImpl{
			NArgs:        3,
			VolatileArgs: true,
			Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				ns, _ := args[0].([]byte)
				vecs, _ := args[1].([]byte)
				h, _ := args[2].(int64)
				s := scanFor(h)
				if s == nil {
					return int64(0), nil
				}
				return int64(1), s.scanPack(ns, vecs)
			},
		})
	})
}
