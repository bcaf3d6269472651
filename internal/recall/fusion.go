package recall

import (
	"context"
	"math"
	"sort"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// Weights weigh the three signals of a hybrid search. Each signal is
// scaled to [0, 1] over the candidates first (see fuseHybrid).
type Weights struct {
	BM25, Dense, Match float64
}

// DefaultWeights were chosen by cross-validation by conversation on the
// shared half of LoCoMo, one setting for all three of its corpus shapes
// (docs/recall.md, "How the ranking was chosen").
var DefaultWeights = Weights{BM25: 0.2, Dense: 0.1, Match: 0.7}

// Signals of a search.
const (
	signalBM25 = iota
	signalDense
	signalMatch
	nSignals
)

// Signal is how one signal saw a result.
type Signal struct {
	// Raw is the signal's own score: BM25's, the cosine, the match.
	Raw float64
	// Norm is Raw scaled over the candidates, as it was fused.
	Norm float64
	// Rank is the result's place in the signal's own ranking, from 1;
	// 0 when that ranking did not list it (a dense score computed for a
	// word candidate, say).
	Rank int
	// Weight is the signal's weight in the fusion.
	Weight float64
}

// Explain says how a result's score came about: score = Relevance ×
// Approved × Age, Relevance = Σ Weight × Norm over the signals.
type Explain struct {
	// BM25, Dense and Match are nil when the search did not use them.
	BM25, Dense, Match *Signal
	Relevance          float64
	// Approved is the approved-text prior's factor, Age the run
	// recency decay's (1 when they do not apply).
	Approved, Age float64
}

type fusedHit struct {
	id      string
	meta    *index.Meta // nil until read
	score   float64
	sig     [nSignals]*Signal
	explain Explain
}

func (f *fusedHit) scores() Scores {
	s := Scores{Fused: round(f.score), Explain: f.explain}
	raw := func(sg *Signal) *float64 {
		if sg == nil {
			return nil
		}
		r := round(sg.Raw)
		return &r
	}
	s.BM25, s.Dense, s.Match = raw(f.sig[signalBM25]), raw(f.sig[signalDense]), raw(f.sig[signalMatch])
	s.Explain.BM25, s.Explain.Dense, s.Explain.Match = f.sig[signalBM25], f.sig[signalDense], f.sig[signalMatch]
	return s
}

// fuseOne ranks by one signal alone (mode bm25 or dense): BM25 scores
// divided by the top one, cosines c as (c + 1) / 2.
func fuseOne(hits []index.Hit, sig int) []fusedHit {
	out := make([]fusedHit, len(hits))
	top := 0.0
	if len(hits) > 0 {
		top = hits[0].Score
	}
	for i, h := range hits {
		// In [0, 1] as in hybrid, so that the priors, which multiply,
		// lift and lower the right way: BM25 over the best, a cosine
		// from [-1, 1].
		n := (h.Score + 1) / 2
		if sig == signalBM25 {
			n = scaleTo(h.Score, top)
		}
		s := &Signal{Raw: h.Score, Norm: round(n), Rank: i + 1, Weight: 1}
		out[i] = fusedHit{id: h.ID, score: n}
		out[i].sig[sig] = s
	}
	return out
}

func scaleTo(x, top float64) float64 {
	if top <= 0 {
		return 0
	}
	return x / top
}

// fuseHybrid scores the union of the word and the dense rankings'
// candidates by three signals, each scaled to [0, 1] over the candidates,
// and sums them weighted:
//   - BM25: the score divided by the top one (0 where no word matched);
//   - dense: the cosine, min-max scaled (computed for the word
//     candidates the dense ranking did not list);
//   - match: for each content word of the query, the best cosine between
//     its built-in word vector and a word of the document (1 for the word
//     itself, 0 for a negative cosine), averaged with the squared IDF of
//     the words as weights: already in [0, 1].
//
// A word-level match sees that "painted" answers "paint" and "canine"
// "dog" inside short texts, where one vector per text blurs them.
func fuseHybrid(ctx context.Context, x *index.Index, p *prepared, qvec []float32, words, dense []index.Hit, w Weights) ([]fusedHit, error) {
	byID := map[string]int{}
	var out []fusedHit
	add := func(hits []index.Hit, sig int) {
		for rank, h := range hits {
			i, ok := byID[h.ID]
			if !ok {
				i = len(out)
				byID[h.ID] = i
				out = append(out, fusedHit{id: h.ID})
			}
			out[i].sig[sig] = &Signal{Raw: h.Score, Rank: rank + 1}
		}
	}
	add(words, signalBM25)
	add(dense, signalDense)
	if len(out) == 0 {
		return nil, nil
	}
	ids := make([]string, len(out))
	var noDense []string
	for i, f := range out {
		ids[i] = f.id
		if f.sig[signalDense] == nil {
			noDense = append(noDense, f.id)
		}
	}
	if err := p.add(ctx, x, ids); err != nil { // the dense ranking's
		return nil, err
	}
	cos, err := x.VectorScores(ctx, qvec, noDense)
	if err != nil {
		return nil, err
	}
	for i := range out {
		f := &out[i]
		if c, ok := p.cands[f.id]; ok {
			f.meta = &c.Meta
		}
		if c, ok := cos[f.id]; ok && f.sig[signalDense] == nil {
			f.sig[signalDense] = &Signal{Raw: c}
		}
		f.sig[signalMatch] = &Signal{Raw: p.match[f.id]}
	}
	// Scale each signal over the candidates.
	topBM := 0.0
	if len(words) > 0 {
		topBM = words[0].Score
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range out {
		if d := f.sig[signalDense]; d != nil {
			lo, hi = min(lo, d.Raw), max(hi, d.Raw)
		}
	}
	for i := range out {
		f := &out[i]
		if f.sig[signalBM25] == nil {
			f.sig[signalBM25] = &Signal{}
		}
		b := f.sig[signalBM25]
		b.Norm, b.Weight = scaleTo(b.Raw, topBM), w.BM25
		// A document without a vector yet (its embedding failed, or is
		// still to come) has no dense signal: it counts 0, as the
		// lowest does, and shows none.
		dn := 0.0
		if d := f.sig[signalDense]; d != nil {
			if hi > lo {
				d.Norm = (d.Raw - lo) / (hi - lo)
			}
			d.Weight = w.Dense
			dn = d.Norm
		}
		mt := f.sig[signalMatch]
		mt.Norm, mt.Weight = mt.Raw, w.Match
		f.score = w.BM25*b.Norm + w.Dense*dn + w.Match*mt.Norm
		for _, s := range f.sig {
			if s != nil {
				s.Raw, s.Norm = round(s.Raw), round(s.Norm)
			}
		}
	}
	rankBy(out, signalMatch)
	return out, nil
}

// rankBy sets the Rank of one signal from its raw scores (ties by id).
func rankBy(hits []fusedHit, sig int) {
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ha, hb := &hits[order[a]], &hits[order[b]]
		if sa, sb := ha.sig[sig].Raw, hb.sig[sig].Raw; sa != sb {
			return sa > sb
		}
		return ha.id < hb.id
	})
	for r, i := range order {
		hits[i].sig[sig].Rank = r + 1
	}
}

// prepared is what the hybrid fusion reads of its candidates — their
// metadata, text and word match — gathered as the rankings find them: the
// word ranking's while the dense one still runs.
type prepared struct {
	m     *matcher
	cands map[string]index.Candidate
	match map[string]float64
}

func prepare(ctx context.Context, x *index.Index, query string) (*prepared, error) {
	m, err := newMatcher(ctx, x, query)
	if err != nil {
		return nil, err
	}
	return &prepared{m: m, cands: map[string]index.Candidate{}, match: map[string]float64{}}, nil
}

// add reads the candidates among ids it has not read yet, in one query,
// and scores their word match.
func (p *prepared) add(ctx context.Context, x *index.Index, ids []string) error {
	var todo []string
	for _, id := range ids {
		if _, ok := p.cands[id]; !ok {
			todo = append(todo, id)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	cs, err := x.Candidates(ctx, todo)
	if err != nil {
		return err
	}
	for id, c := range cs {
		p.cands[id] = c
		p.match[id] = p.m.score(c.Text)
	}
	return nil
}

// matcher scores a document by how well each content word of the query is
// matched by a word of it (see fuseHybrid).
type matcher struct {
	words []string
	vecs  [][]float32 // nil for a word the table does not have
	idf   []float64
	total float64 // Σ idf²
	// cos caches each document word's cosine with each query word: the
	// candidates share most of their words.
	cos map[string][]float64
}

// newMatcher takes the query's content words (those BM25 keeps: the
// analysis drops stop words) and their IDF in the index.
func newMatcher(ctx context.Context, x *index.Index, query string) (*matcher, error) {
	var ws []string
	seen := map[string]bool{}
	for _, w := range embed.Words(query) {
		// One letter is the rest of a contraction or a possessive
		// ("caroline's" splits in two): not a content word.
		if !seen[w] && utf8.RuneCountInString(w) > 1 {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	docs, df, err := x.WordDF(ctx, ws)
	if err != nil {
		return nil, err
	}
	m := &matcher{cos: map[string][]float64{}}
	for i, w := range ws {
		if df[i] < 0 {
			continue
		}
		idf := math.Log(float64(docs+1)/float64(df[i]+1)) + 1
		v, _ := embed.WordVec(w)
		m.words = append(m.words, w)
		m.vecs = append(m.vecs, v)
		m.idf = append(m.idf, idf)
		m.total += idf * idf
	}
	return m, nil
}

// best is, for each query word, its best match in text: 1 for the word
// itself, else the highest positive cosine with a word of the text.
func (m *matcher) best(text string) []float64 {
	best := make([]float64, len(m.words))
	if len(m.words) == 0 {
		return best
	}
	for _, w := range embed.Words(text) {
		cs, ok := m.cos[w] // a word seen twice counts once: max is idempotent
		if !ok {
			cs = make([]float64, len(m.words))
			for i, qw := range m.words {
				switch {
				case w == qw:
					cs[i] = 1
				case m.vecs[i] != nil:
					if c, ok := embed.WordCos(m.vecs[i], w); ok && c > 0 {
						cs[i] = c
					}
				}
			}
			m.cos[w] = cs
		}
		for i, c := range cs {
			best[i] = max(best[i], c)
		}
	}
	return best
}

// score is the IDF²-weighted mean of the query words' best matches.
func (m *matcher) score(text string) float64 {
	if m.total == 0 {
		return 0
	}
	var sum float64
	for i, b := range m.best(text) {
		sum += m.idf[i] * m.idf[i] * b
	}
	return sum / m.total
}
