package recall

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// Baseline is the mode every other mode is compared with: words alone.
const Baseline = ModeBM25

// Level is the confidence level of the evaluation's intervals.
const Level = 0.95

// EvalOptions configure a retrieval evaluation.
type EvalOptions struct {
	// GroupBy ranks each query only among the documents whose meta field
	// of that name equals the query's (one index per group).
	GroupBy string
	// Modes to score, in the order reported; default every mode recall
	// has (Modes), or only bm25 without an embedder.
	Modes []string
	// Embedder for the dense ranking; nil ranks by words only.
	Embedder embed.Embedder
	// TempDir holds the temporary indexes (default os.TempDir()).
	TempDir string
	// Search tunes the ranking (K, Depth and Mode are set by the
	// evaluation).
	Search Options
	// KeepRuns keeps each mode's ranked lists in the report, for a run
	// file (WriteTREC).
	KeepRuns bool
}

// Metrics of one query, or their mean over the queries.
type Metrics struct {
	Recall5  float64
	Recall10 float64
	NDCG10   float64
	MRR      float64
}

// ModeReport is one mode's figures on a corpus.
type ModeReport struct {
	Mode string
	// Mean over the judged queries, and the bootstrap interval of its
	// nDCG@10.
	Mean     Metrics
	NDCG10CI Interval
	// PerQuery are the judged queries' metrics, in EvalReport.QueryIDs
	// order.
	PerQuery []Metrics
	// Run is the ranked lists (top 100), with KeepRuns.
	Run []Ranked
}

// Ranked is one query's ranking: document IDs best first, with the
// ranking's scores.
type Ranked struct {
	Query  string
	Docs   []string
	Scores []float64
}

// Comparison is one mode against the baseline on per-query nDCG@10.
type Comparison struct {
	Mode, Baseline string
	Paired
}

// EvalReport is the evaluation of one corpus.
type EvalReport struct {
	Corpus Corpus
	// Queries is how many queries have a relevant document (the ones
	// averaged); QueryIDs are their IDs in the order of queries.jsonl.
	Queries  int
	QueryIDs []string
	Docs     int
	Groups   int
	Modes    []ModeReport
	// Compared holds each mode other than the baseline against it, when
	// both were scored.
	Compared []Comparison
}

// Mode returns the report of mode m, if it was scored.
func (r *EvalReport) Mode(m string) (ModeReport, bool) {
	for _, mr := range r.Modes {
		if mr.Mode == m {
			return mr, true
		}
	}
	return ModeReport{}, false
}

// ErrNeedsEmbedder is a mode other than bm25 asked of an evaluation
// without an embedder.
var ErrNeedsEmbedder = errors.New("needs an embedder")

// Evaluate indexes the corpus in temporary indexes (one per group, each
// shared by every mode) and scores each mode's top 100 for every judged
// query.
func Evaluate(ctx context.Context, c Corpus, opts EvalOptions) (EvalReport, error) {
	rep := EvalReport{Corpus: c}
	if len(opts.Modes) == 0 {
		opts.Modes = Modes
		if opts.Embedder == nil {
			opts.Modes = []string{ModeBM25}
		}
	}
	for _, m := range opts.Modes {
		if m != ModeBM25 && opts.Embedder == nil {
			return rep, fmt.Errorf("mode %q: %w", m, ErrNeedsEmbedder)
		}
	}
	in, err := c.read()
	if err != nil {
		return rep, err
	}
	if opts.GroupBy != "" && !in.hasField(opts.GroupBy) {
		return rep, fmt.Errorf("%s: no document has meta.%s to group by; check --group-by", filepath.Join(c.Dir, "corpus.jsonl"), opts.GroupBy)
	}
	groups, order := in.groups(opts.GroupBy)
	rep.Docs, rep.Groups = len(in.corpus), len(groups)
	judged := in.judged()
	rep.Queries = len(judged)
	pos := map[string]int{}
	qByGroup := map[string][]evalRow{}
	for i, q := range judged {
		rep.QueryIDs = append(rep.QueryIDs, q.ID)
		pos[q.ID] = i
		g := q.group(opts.GroupBy)
		qByGroup[g] = append(qByGroup[g], q)
	}
	rep.Modes = make([]ModeReport, len(opts.Modes))
	for i, m := range opts.Modes {
		// A query whose group has no documents keeps zeros, as a
		// query missing from a run file does.
		rep.Modes[i] = ModeReport{Mode: m, PerQuery: make([]Metrics, len(judged))}
		if opts.KeepRuns {
			rep.Modes[i].Run = make([]Ranked, len(judged))
			for j, q := range judged {
				rep.Modes[i].Run[j].Query = q.ID
			}
		}
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "memctl-eval-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(tmp)
	for gi, g := range order {
		if len(qByGroup[g]) == 0 {
			continue
		}
		e := groupEval{dir: c.Dir, idxDir: filepath.Join(tmp, strconv.Itoa(gi)), opts: opts, qrels: in.qrels, pos: pos}
		if err := e.run(ctx, groups[g], qByGroup[g], rep.Modes); err != nil {
			return rep, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	rep.summarise()
	return rep, nil
}

// summarise fills the means, intervals and comparisons from the
// per-query metrics.
func (r *EvalReport) summarise() {
	for i := range r.Modes {
		m := &r.Modes[i]
		m.Mean = mean(m.PerQuery)
		m.NDCG10CI = BootstrapMean(ndcgs(m.PerQuery), Level, Resamples, Seed)
	}
	base, ok := r.Mode(Baseline)
	if !ok {
		return
	}
	for _, m := range r.Modes {
		if m.Mode != Baseline {
			p := PairedTest(ndcgs(m.PerQuery), ndcgs(base.PerQuery), Level, Resamples, Seed)
			r.Compared = append(r.Compared, Comparison{Mode: m.Mode, Baseline: Baseline, Paired: p})
		}
	}
}

func mean(ms []Metrics) Metrics {
	var s Metrics
	for _, m := range ms {
		s.Recall5 += m.Recall5
		s.Recall10 += m.Recall10
		s.NDCG10 += m.NDCG10
		s.MRR += m.MRR
	}
	n := float64(max(len(ms), 1))
	return Metrics{Recall5: s.Recall5 / n, Recall10: s.Recall10 / n, NDCG10: s.NDCG10 / n, MRR: s.MRR / n}
}

func ndcgs(ms []Metrics) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = m.NDCG10
	}
	return out
}

// groupEval scores one group's queries against an index of its documents.
type groupEval struct {
	dir, idxDir string
	opts        EvalOptions
	qrels       map[string]map[string]float64
	pos         map[string]int // a query's place in the report
}

// evalDepth is how deep each query's ranking is scored (MRR looks that
// far) and written to a run file.
const evalDepth = 100

func (e groupEval) run(ctx context.Context, docs []index.Doc, qs []evalRow, modes []ModeReport) error {
	x, err := index.Open(ctx, index.Options{Dir: e.idxDir, Embedder: e.opts.Embedder})
	if err != nil {
		return err
	}
	defer x.Close()
	st, err := x.Update(ctx, e.dir, []index.Source{memSource(docs)})
	if err != nil {
		return err
	}
	if st.Missing > 0 {
		return fmt.Errorf("embedder %s failed on %d of %d documents: dense figures would be wrong", e.opts.Embedder.ID(), st.Missing, len(docs))
	}
	for _, q := range qs {
		i := e.pos[q.ID]
		for mi := range modes {
			m := &modes[mi]
			so := e.opts.Search
			so.Mode, so.K, so.Depth = m.Mode, evalDepth, evalDepth
			r, err := rankOnly(ctx, x, q.Text, so)
			if err != nil {
				return fmt.Errorf("query %s: %w", q.ID, err)
			}
			score(&m.PerQuery[i], r.Docs, e.qrels[q.ID])
			if m.Run != nil {
				m.Run[i].Docs, m.Run[i].Scores = r.Docs, r.Scores
			}
		}
	}
	return nil
}

// rankOnly is Search without reading the results' documents (most of a
// search's time on a small corpus, and an evaluation needs only the IDs).
// A mode that fell back to another (the embedder failed) is an error: its
// figures would be the other mode's.
func rankOnly(ctx context.Context, x *index.Index, query string, so Options) (Ranked, error) {
	if err := CheckQuery(query); err != nil {
		return Ranked{}, err
	}
	so.defaults()
	ans, top, err := search(ctx, x, query, so)
	if err != nil {
		return Ranked{}, err
	}
	if ans.Mode != so.Mode {
		return Ranked{}, fmt.Errorf("mode %s fell back to %s: %s", so.Mode, ans.Mode, ans.Warning)
	}
	r := Ranked{Docs: make([]string, len(top)), Scores: make([]float64, len(top))}
	for i, h := range top {
		r.Docs[i], r.Scores[i] = h.id, h.score // unrounded: rounding would make ties a run file does not have
	}
	return r, nil
}

// score adds one query's metrics to sum, as score_retrieval.py counts
// them: gain 2^rel − 1 discounted by log2(rank + 1) for nDCG@10, and MRR
// from the first relevant document anywhere in the ranking. A query
// without a relevant document adds nothing.
func score(sum *Metrics, ranked []string, rel map[string]float64) {
	var gains []float64
	for _, r := range rel {
		if r > 0 {
			gains = append(gains, r)
		}
	}
	if len(gains) == 0 {
		return
	}
	hits5, hits10 := 0, 0
	dcg := 0.0
	first := 0
	for i, id := range ranked {
		r := rel[id]
		if r <= 0 {
			continue
		}
		if i < 5 {
			hits5++
		}
		if i < 10 {
			hits10++
			dcg += gain(r, i)
		}
		if first == 0 {
			first = i + 1
		}
	}
	slices.Sort(gains)
	slices.Reverse(gains)
	idcg := 0.0
	for i, r := range gains[:min(len(gains), 10)] {
		idcg += gain(r, i)
	}
	sum.Recall5 += float64(hits5) / float64(len(gains))
	sum.Recall10 += float64(hits10) / float64(len(gains))
	sum.NDCG10 += dcg / idcg
	if first > 0 {
		sum.MRR += 1 / float64(first)
	}
}

// gain is a relevance's discounted gain at rank i+1.
func gain(rel float64, i int) float64 {
	return (math.Pow(2, rel) - 1) / math.Log2(float64(i)+2)
}

// memSource serves documents already in memory as if read from a file.
type memSource []index.Doc

func (memSource) Kind() string                               { return "doc" }
func (memSource) Files(string) ([]string, error)             { return []string{"corpus.jsonl"}, nil }
func (m memSource) Docs(string, []byte) ([]index.Doc, error) { return m, nil }

// errNoCorpus is a directory without a corpus.
var errNoCorpus = fmt.Errorf("no corpus.jsonl in it or in a folder in it: %w", fs.ErrNotExist)
