package tasks

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// WriteBeadsExport writes the live issues as bd 1.0.5's `bd export` does:
// one line each, in file order, "_type":"issue" first, the fields in bd's
// order, then the derived counts (outgoing and incoming "blocks" edges,
// comments). Tombstones and other records (bd's memories) are left out,
// as bd export leaves them without --all. It returns how many issues it
// wrote.
func (s *Store) WriteBeadsExport(w io.Writer) (int, error) {
	g := NewGraph(s)
	bw := bufio.NewWriter(w)
	n := 0
	for _, iss := range s.Issues() {
		var b bytes.Buffer
		b.WriteString(`{"_type":"issue"`)
		iss.rec.Fields(func(key string, raw []byte) {
			switch key {
			case "_type", keyDependencyCount, keyDependentCount, keyCommentCount:
				return
			}
			b.WriteByte(',')
			writeKey(&b, key)
			compactInto(&b, raw)
		})
		out, in := g.BlocksCounts(iss)
		b.WriteString(`,"dependency_count":` + strconv.Itoa(out) + `,"dependent_count":` + strconv.Itoa(in) + `,"comment_count":` + strconv.Itoa(iss.Comments) + "}\n")
		if _, err := bw.Write(b.Bytes()); err != nil {
			return n, err
		}
		n++
	}
	return n, bw.Flush()
}
