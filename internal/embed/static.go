package embed

import (
	"context"
	"math"
	"sync"
)

const (
	wordDims = 100
	hashDims = 384
	// StaticID names the built-in embedder; bump its version when its
	// vectors change, so indexes re-make theirs.
	StaticID = "builtin:glove100+hash384:v1"
)

// Weights of the two halves of a built-in vector (their squares sum to 1).
var (
	wordWeight = float32(math.Sqrt(0.5))
	hashWeight = float32(math.Sqrt(0.5))
)

var (
	tableOnce sync.Once
	table     *wordTable
)

func words() *wordTable {
	tableOnce.Do(func() { table = openTable(wordsBin) })
	return table
}

// Corpus is what the built-in embedder knows of the documents it embeds
// for: how many there are, in how many each word occurs, and the common
// component of their word vectors. The zero Corpus weighs every word
// alike and removes nothing.
type Corpus struct {
	Docs int
	// DF returns in how many documents a word occurs; nil means none.
	DF func(word string) int
	// Component is a unit vector of wordDims numbers removed from every
	// word part (see FitComponent); nil removes nothing.
	Component []float32
}

func (c Corpus) idf(w string) float32 {
	if c.Docs == 0 || c.DF == nil {
		return 1
	}
	return float32(math.Log(float64(c.Docs+1)/float64(c.DF(w)+1)) + 1)
}

// Static is the built-in embedder. It is safe for concurrent use.
type Static struct {
	corpus Corpus
}

// NewStatic returns the built-in embedder for a corpus.
func NewStatic(c Corpus) *Static { return &Static{corpus: c} }

// ID implements Embedder.
func (s *Static) ID() string { return StaticID }

// Dims implements Embedder.
func (s *Static) Dims() int { return wordDims + hashDims }

// Embed implements Embedder.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = s.embed(text)
	}
	return out, nil
}

func (s *Static) embed(text string) []float32 {
	v := make([]float32, wordDims+hashDims)
	ws, idf := s.weighted(text)
	if len(ws) == 0 {
		return v
	}
	wp := v[:wordDims]
	if wordPart(wp, ws, idf) {
		removeComponent(wp, s.corpus.Component)
		scaleToLength(wp, wordWeight)
	}
	hp := v[wordDims:]
	hashPart(hp, ws, idf)
	scaleToLength(hp, hashWeight)
	return Normalize(v)
}

// weighted is the text's words and each one's IDF in the corpus.
func (s *Static) weighted(text string) ([]string, []float32) {
	ws := Words(text)
	idf := make([]float32, len(ws))
	for i, w := range ws {
		idf[i] = s.corpus.idf(w)
	}
	return ws, idf
}

// scaleToLength normalises v and scales it to length w.
func scaleToLength(v []float32, w float32) {
	Normalize(v)
	for i := range v {
		v[i] *= w
	}
}

// WordPart is the IDF-weighted mean of the text's word vectors before the
// common component is removed: what FitComponent learns from. ok is false
// when no word of the text is in the table.
func (s *Static) WordPart(text string) (v []float32, ok bool) {
	ws, idf := s.weighted(text)
	v = make([]float32, wordDims)
	return v, wordPart(v, ws, idf)
}

func wordPart(dst []float32, ws []string, idf []float32) bool {
	t := words()
	var total float32
	for i, w := range ws {
		if j := t.lookup(w); j >= 0 {
			t.addRow(dst, j, idf[i])
			total += idf[i]
		}
	}
	if total == 0 {
		return false
	}
	for i := range dst {
		dst[i] /= total
	}
	return true
}

func removeComponent(v, u []float32) {
	if len(u) != len(v) {
		return
	}
	d := Dot(v, u)
	for i := range v {
		v[i] -= d * u[i]
	}
}

// hashPart adds signed hashes of each word and of its character 3- to
// 5-grams (of "<word>"), weighted by the word's IDF; the n-grams share
// the word's weight, so long words do not outweigh short ones.
func hashPart(dst []float32, ws []string, idf []float32) {
	n := uint64(len(dst))
	var buf [64]byte
	for i, w := range ws {
		add(dst, n, hash64("w", w), idf[i])
		b := append(append(append(buf[:0], '<'), w...), '>')
		grams := 0
		for k := 3; k <= 5; k++ {
			if len(b) >= k {
				grams += len(b) - k + 1
			}
		}
		if grams == 0 {
			continue
		}
		g := idf[i] / float32(grams)
		for k := 3; k <= 5; k++ {
			for j := 0; j+k <= len(b); j++ {
				add(dst, n, hash64b(b[j:j+k]), g)
			}
		}
	}
}

func add(dst []float32, n, h uint64, w float32) {
	if h>>63 == 1 {
		w = -w
	}
	dst[h%n] += w
}

func hash64(prefix, s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(prefix); i++ {
		h ^= uint64(prefix[i])
		h *= 1099511628211
	}
	h ^= ':'
	h *= 1099511628211
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

func hash64b(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix(h)
}

// mix spreads FNV's low-entropy high bits (the sign comes from bit 63).
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// FitComponent returns the first principal direction (uncentred) of word
// parts, by power iteration: the direction every text shares, which says
// little about any one of them (Arora et al.'s "common component"). It
// returns nil for fewer than two parts.
func FitComponent(parts [][]float32) []float32 {
	if len(parts) < 2 {
		return nil
	}
	u := make([]float32, wordDims)
	for _, p := range parts {
		for i, x := range p {
			u[i] += x
		}
	}
	Normalize(u)
	next := make([]float32, wordDims)
	for range 30 {
		clear(next)
		for _, p := range parts {
			d := Dot(p, u)
			for i, x := range p {
				next[i] += d * x
			}
		}
		Normalize(next)
		u, next = next, u
	}
	return u
}

// Fit implements Fitter.
func (s *Static) Fit(c Corpus) Fitter { return NewStatic(c) }
