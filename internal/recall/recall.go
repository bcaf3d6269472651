// Package recall answers "what do we know, what happened last time?" over
// the index: BM25 over words, cosine over dense vectors and a word-level
// match of the query's words, fused by score, with filters, priors and
// provenance.
package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// Modes of recall.
const (
	ModeHybrid = "hybrid"
	ModeBM25   = "bm25"
	ModeDense  = "dense"
)

// Modes are every mode of recall, words alone first.
var Modes = []string{ModeBM25, ModeDense, ModeHybrid}

// Options configure a search. The zero value of a field takes the default.
type Options struct {
	Mode   string
	K      int
	Filter index.Filter
	// Weights of the hybrid score (default DefaultWeights).
	Weights Weights
	// Depth is how many results each ranking contributes to the
	// candidates (default 100).
	Depth int
	// HalfLife of the recency decay for runs (default 30 days; NoDecay:
	// none); Now is the time it decays to.
	HalfLife time.Duration
	Now      time.Time
	// ApprovedBoost lifts human-approved text (facts) ahead of unapproved
	// text at equal relevance (default 0.05: 5%).
	ApprovedBoost float64
}

func (o *Options) defaults() {
	if o.Mode == "" {
		o.Mode = ModeHybrid
	}
	if o.K <= 0 {
		o.K = 10
	}
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights
	}
	if o.Depth < o.K {
		o.Depth = max(100, o.K)
	}
	if o.HalfLife <= 0 {
		o.HalfLife = 30 * 24 * time.Hour
	}
	if o.ApprovedBoost == 0 {
		o.ApprovedBoost = 0.05
	}
}

// NoDecay is the HalfLife of runs that do not decay with age: equally
// relevant runs tie, and rank by id.
const NoDecay time.Duration = math.MaxInt64

// Scores are a result's raw scores in each signal (nil when the search did
// not compute it), the fused score after the priors, and how each signal
// counted.
type Scores struct {
	BM25  *float64
	Dense *float64
	Match *float64
	Fused float64
	// Explain says how the fused score came about.
	Explain Explain
}

// Source is where a result comes from.
type Source struct {
	Path   string
	Line   int
	Commit string
}

// Result is one document found.
type Result struct {
	Kind string
	// Status is the document's: a task's (open, closed, …), a
	// proposal's (pending, approved, rejected, withdrawn), a run's outcome
	// (success, failure, …), "approved" for facts and playbooks, "" for
	// personal preferences.
	Status    string
	ID        string
	Title     string
	Snippet   string
	Score     float64
	Scores    Scores
	Source    Source
	CreatedAt *time.Time
	// Matched are the query's words found in the snippet, for
	// highlighting.
	Matched []string
	// Match says how recall --error found it (MatchSignature,
	// MatchSimilar); "" in an ordinary search.
	Match string
}

// Answer is a search's results and how they were found.
type Answer struct {
	Mode    string
	Results []Result
	// Warning says why the mode asked for could not be used (the
	// embedder failed: words only).
	Warning string
}

// CheckMode refuses a mode recall does not have.
func CheckMode(mode string) error {
	if !slices.Contains(Modes, mode) {
		return fmt.Errorf("mode %q: want one of %s", mode, strings.Join(Modes, ", "))
	}
	return nil
}

// ErrEmptyQuery is a query with nothing to search for. Without words the
// word ranking matches nothing and the dense one ranks every document
// alike, so an answer would be the first k documents, not a result.
var ErrEmptyQuery = errors.New("the query is empty")

// CheckQuery returns ErrEmptyQuery for a query that is empty or only
// white space; callers check it before bringing the index up to date.
func CheckQuery(query string) error {
	if strings.TrimSpace(query) == "" {
		return ErrEmptyQuery
	}
	return nil
}

// Search runs a query against an up-to-date index.
func Search(ctx context.Context, x *index.Index, query string, opts Options) (Answer, error) {
	if err := CheckQuery(query); err != nil {
		return Answer{}, err
	}
	opts.defaults()
	if err := CheckMode(opts.Mode); err != nil {
		return Answer{}, err
	}
	ans, top, err := search(ctx, x, query, opts)
	if err != nil {
		return ans, err
	}
	ans.Results, err = results(ctx, x, query, top)
	return ans, err
}

// search ranks the documents for query: the best opts.K, fused and
// weighed by the priors.
func search(ctx context.Context, x *index.Index, query string, opts Options) (Answer, []fusedHit, error) {
	ans := Answer{Mode: opts.Mode}
	if opts.Mode == ModeHybrid && !x.CanEmbed() {
		// No embedder ([embed] provider = "none"): words only, as
		// configured, so no warning.
		ans.Mode = ModeBM25
	}
	mode := ans.Mode // the goroutine's: ans.Mode may change below
	var words, dense []index.Hit
	var qvec []float32
	var prep *prepared
	var err, wordsErr error
	// The two rankings use different stores (Bleve, SQLite): run them at
	// the same time. The word ranking is the quicker: in hybrid mode its
	// candidates are read and matched while the dense one still runs.
	done := make(chan struct{})
	go func() {
		defer close(done)
		if mode == ModeDense {
			return
		}
		words, wordsErr = x.SearchWords(ctx, query, opts.Filter, opts.Depth)
		if wordsErr == nil && mode == ModeHybrid {
			prep, wordsErr = prepare(ctx, x, query)
			if wordsErr == nil {
				wordsErr = prep.add(ctx, x, hitIDs(words))
			}
		}
	}()
	defer func() { <-done }() // never leave it running on an early return
	if ans.Mode != ModeBM25 {
		qvec, dense, err = searchDense(ctx, x, query, opts)
		if err != nil {
			if ctx.Err() != nil {
				return ans, nil, ctx.Err()
			}
			if opts.Mode == ModeDense {
				return ans, nil, err
			}
			ans.Warning = denseWarning(err)
			ans.Mode = ModeBM25
			dense = nil
		}
	}
	<-done
	if wordsErr != nil {
		return ans, nil, wordsErr
	}
	var fused []fusedHit
	switch ans.Mode {
	case ModeBM25:
		fused = fuseOne(words, signalBM25)
	case ModeDense:
		fused = fuseOne(dense, signalDense)
	default:
		if len(words) == 0 && len(prep.m.words) == 0 {
			// Only stop words ("the a of"): no word matched, none is
			// left to match, and the dense ranking alone would list
			// anything. Nothing found.
			break
		}
		fused, err = fuseHybrid(ctx, x, prep, qvec, words, dense, opts.Weights)
		if err != nil {
			return ans, nil, err
		}
	}
	top, err := rank(ctx, x, fused, opts)
	return ans, top, err
}

func hitIDs(hits []index.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// rank applies the priors to the fused candidates and keeps the best k.
// Priors need a little of every candidate (one query), the results all of
// the top k only.
func rank(ctx context.Context, x *index.Index, fused []fusedHit, opts Options) ([]fusedHit, error) {
	var ids []string
	for _, f := range fused {
		if f.meta == nil {
			ids = append(ids, f.id)
		}
	}
	metas, err := x.Metas(ctx, ids) // what fuseHybrid did not read
	if err != nil {
		return nil, err
	}
	kept := fused[:0]
	for _, f := range fused {
		m, ok := metas[f.id]
		if f.meta != nil {
			m, ok = *f.meta, true
		}
		if ok {
			f.explain.Relevance = round(f.score)
			f.explain.Approved, f.explain.Age = priors(m, opts)
			f.score *= f.explain.Approved * f.explain.Age
			kept = append(kept, f)
		}
	}
	sort.SliceStable(kept, func(a, b int) bool {
		if kept[a].score != kept[b].score {
			return kept[a].score > kept[b].score
		}
		return kept[a].id < kept[b].id
	})
	return kept[:min(len(kept), opts.K)], nil
}

// results reads the ranked documents and makes them results, with
// provenance and a snippet around the query's words.
func results(ctx context.Context, x *index.Index, query string, top []fusedHit) ([]Result, error) {
	ids := make([]string, len(top))
	for i, f := range top {
		ids[i] = f.id
	}
	docs, err := x.Docs(ctx, ids)
	if err != nil {
		return nil, err
	}
	qwords := queryWords(query)
	var out []Result
	for i, f := range top {
		d := docs[i]
		if d.ID == "" {
			continue
		}
		r := Result{
			Kind: d.Kind, Status: d.Status, ID: d.Ref, Title: title(&d), Score: round(f.score),
			Scores: f.scores(),
			Source: Source{Path: d.File, Line: d.Line, Commit: d.Commit},
		}
		r.Snippet, r.Matched = snippet(d.Body, qwords, 200)
		if !d.Created.IsZero() {
			t := d.Created
			r.CreatedAt = &t
		}
		out = append(out, r)
	}
	return out, nil
}

func searchDense(ctx context.Context, x *index.Index, query string, opts Options) ([]float32, []index.Hit, error) {
	if !x.CanEmbed() {
		return nil, nil, fmt.Errorf("no embedder is configured")
	}
	q, err := x.EmbedQuery(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	hits, err := x.SearchVector(ctx, q, opts.Filter, opts.Depth)
	return q, hits, err
}

// priors are the factors a fused score is multiplied by: approved text
// ahead at equal relevance, runs decaying with age (1 when they do not
// apply).
func priors(d index.Meta, opts Options) (approved, age float64) {
	approved, age = 1, 1
	if d.Approved {
		approved += opts.ApprovedBoost
	}
	if d.Kind == index.KindRun && !d.Created.IsZero() && !opts.Now.IsZero() && opts.HalfLife != NoDecay {
		if a := opts.Now.Sub(d.Created); a > 0 {
			age = math.Pow(0.5, float64(a)/float64(opts.HalfLife))
		}
	}
	return approved, age
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func title(d *index.Doc) string {
	t := d.Title
	if t == "" {
		// A fact or proposal: its text, re-flowed onto one line (a
		// proposal's reason and feedback follow on their own lines).
		t, _, _ = strings.Cut(d.Body, "\nReason: ")
	}
	return truncate(strings.Join(strings.Fields(t), " "), 100)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// queryWords are the query's words, lower-cased, for highlighting.
func queryWords(q string) map[string]bool {
	out := map[string]bool{}
	for _, w := range embed.Words(q) {
		if len(w) > 2 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "was": true, "were": true, "what": true, "which": true,
	"who": true, "how": true, "why": true, "when": true, "where": true, "did": true, "does": true, "with": true,
	"that": true, "this": true, "from": true, "have": true, "has": true, "had": true, "use": true, "our": true,
	"you": true, "your": true, "not": true, "but": true, "can": true, "its": true, "his": true, "her": true,
}

// matches reports whether a word of the text matches a query word: equal,
// or sharing a stem-like prefix (databases ~ database).
func matches(w string, q map[string]bool) bool {
	if q[w] {
		return true
	}
	for qw := range q {
		n := min(len(w), len(qw))
		if n >= 4 && w[:n-1] == qw[:n-1] && (len(w)-n <= 3 && len(qw)-n <= 3) {
			return true
		}
	}
	return false
}

// lowerOffsets is strings.ToLower(s) and, for each of its bytes, the
// offset in s of the character it comes from: some letters change length
// in lower case (İ grows, ẞ shrinks), so an offset in the one is not an
// offset in the other.
func lowerOffsets(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	at := make([]int, 0, len(s))
	for i, r := range s {
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for range b.Len() - n {
			at = append(at, i)
		}
	}
	return b.String(), at
}

// snippet is up to n characters of text around the first words the query
// matches, on one line, and the matched words.
func snippet(text string, q map[string]bool, n int) (string, []string) {
	flat := strings.Join(strings.Fields(text), " ")
	lower, at := lowerOffsets(flat)
	first := -1
	var matched []string
	seen := map[string]bool{}
	for _, w := range embed.Words(flat) {
		if matches(w, q) && !seen[w] {
			seen[w] = true
			matched = append(matched, w)
			if first < 0 {
				if i := strings.Index(lower, w); i >= 0 {
					first = at[i]
				}
			}
		}
	}
	if utf8.RuneCountInString(flat) <= n || first < 0 {
		return truncate(flat, n), matched
	}
	start := max(0, first-n/4)
	for start > 0 && !utf8.RuneStart(flat[start]) {
		start--
	}
	if i := strings.LastIndexByte(flat[:start], ' '); start > 0 && i >= 0 && start-i < 20 {
		start = i + 1
	}
	s := truncate(flat[start:], n)
	if start > 0 {
		s = "…" + s
	}
	return s, matched
}
