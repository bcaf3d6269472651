package embed

import "math"

// WordVec returns the unit vector of a word of the built-in word table
// (lower case, as Words splits it), or ok false for a word the table does
// not have. The vector is a new slice the caller owns.
func WordVec(w string) (v []float32, ok bool) {
	t := words()
	i := t.lookup(w)
	if i < 0 {
		return nil, false
	}
	v = make([]float32, t.dims)
	t.addRow(v, i, 1)
	return Normalize(v), true
}

// WordCos returns the cosine between q, a unit vector of the word table's
// length (from WordVec), and the word's vector, or ok false for a word the
// table does not have. It reads the word's row in place: no allocation.
func WordCos(q []float32, w string) (cos float64, ok bool) {
	t := words()
	i := t.lookup(w)
	if i < 0 || len(q) != t.dims {
		return 0, false
	}
	row := t.data[t.rowsOff+i*t.dims : t.rowsOff+(i+1)*t.dims]
	var dot, norm float32
	for j, x := range q {
		r := float32(int8(row[j]))
		dot += x * r
		norm += r * r
	}
	if norm == 0 {
		return 0, true
	}
	return float64(dot) / math.Sqrt(float64(norm)), true
}
