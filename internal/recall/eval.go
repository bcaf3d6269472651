package recall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

// EvalOptions configure a retrieval evaluation.
type EvalOptions struct {
	// GroupBy ranks each query only among the documents whose meta field
	// of that name equals the query's (one index per group).
	GroupBy string
	// Modes to score; default bm25, dense, hybrid.
	Modes []string
	// Embedder for the dense ranking; nil uses the built-in one.
	Embedder embed.Embedder
	// TempDir holds the temporary indexes (default os.TempDir()).
	TempDir string
	// Search tunes the ranking (K and Mode are set by the evaluation).
	Search Options
	// RunMode's ranked lists (top 100) are written to Run, if set.
	RunMode string
	Run     io.Writer
}

// Metrics of one mode, averaged over the queries that have a relevant
// document.
type Metrics struct {
	Recall5  float64
	Recall10 float64
	NDCG10   float64
	MRR      float64
}

// EvalReport is the result of an evaluation.
type EvalReport struct {
	Queries int
	Docs    int
	Groups  int
	Modes   map[string]Metrics
}

type evalRow struct {
	ID   string         `json:"id"`
	Text string         `json:"text"`
	Meta map[string]any `json:"meta"`
}

func (r evalRow) group(field string) string {
	if field == "" {
		return ""
	}
	v, ok := r.Meta[field]
	if !ok || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// Evaluate reads DIR/corpus.jsonl, DIR/queries.jsonl and DIR/qrels.tsv,
// indexes the corpus in temporary indexes and scores each mode.
func Evaluate(ctx context.Context, dir string, opts EvalOptions) (EvalReport, error) {
	var rep EvalReport
	corpus, err := readRows(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return rep, err
	}
	queries, err := readRows(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return rep, err
	}
	qrels, err := readQrels(filepath.Join(dir, "qrels.tsv"))
	if err != nil {
		return rep, err
	}
	if len(opts.Modes) == 0 {
		opts.Modes = []string{ModeBM25, ModeDense, ModeHybrid}
	}
	if opts.RunMode == "" {
		opts.RunMode = ModeHybrid
	}
	if opts.Embedder == nil {
		opts.Embedder = embed.NewStatic(embed.Corpus{})
	}
	groups := map[string][]index.Doc{}
	var order []string
	for _, r := range corpus {
		g := r.group(opts.GroupBy)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], index.Doc{ID: r.ID, Kind: "doc", Ref: r.ID, Body: r.Text, File: "corpus.jsonl", Priority: -1})
	}
	rep.Docs, rep.Groups = len(corpus), len(groups)
	qByGroup := map[string][]evalRow{}
	for _, q := range queries {
		if len(qrels[q.ID]) == 0 {
			continue
		}
		qByGroup[q.group(opts.GroupBy)] = append(qByGroup[q.group(opts.GroupBy)], q)
		rep.Queries++
	}
	sums := map[string]*Metrics{}
	for _, m := range opts.Modes {
		sums[m] = &Metrics{}
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
		err := evalGroup(ctx, dir, filepath.Join(tmp, strconv.Itoa(gi)), groups[g], qByGroup[g], qrels, opts, sums)
		if err != nil {
			return rep, err
		}
	}
	rep.Modes = map[string]Metrics{}
	for m, s := range sums {
		n := float64(max(rep.Queries, 1))
		rep.Modes[m] = Metrics{Recall5: r4(s.Recall5 / n), Recall10: r4(s.Recall10 / n), NDCG10: r4(s.NDCG10 / n), MRR: r4(s.MRR / n)}
	}
	return rep, nil
}

func r4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// evalGroup indexes one group's documents in idxDir and adds its queries'
// metrics, per mode, to sums.
func evalGroup(ctx context.Context, dir, idxDir string, docs []index.Doc, qs []evalRow, qrels map[string]map[string]float64, opts EvalOptions, sums map[string]*Metrics) error {
	x, err := index.Open(ctx, index.Options{Dir: idxDir, Embedder: opts.Embedder})
	if err != nil {
		return err
	}
	defer x.Close()
	if _, err := x.Update(ctx, dir, []index.Source{memSource(docs)}); err != nil {
		return err
	}
	for _, q := range qs {
		for _, mode := range opts.Modes {
			so := opts.Search
			so.Mode, so.K, so.Depth = mode, 100, 100
			ans, err := Search(ctx, x, q.Text, so)
			if err != nil {
				return fmt.Errorf("query %s: %w", q.ID, err)
			}
			ranked := make([]string, len(ans.Results))
			for i, r := range ans.Results {
				ranked[i] = r.ID
			}
			score(sums[mode], ranked, qrels[q.ID])
			if opts.Run != nil && mode == opts.RunMode {
				for i, id := range ranked {
					fmt.Fprintf(opts.Run, "%s\t%s\t%d\n", q.ID, id, i+1)
				}
			}
		}
	}
	return nil
}

// score adds one query's metrics to sum, as score_retrieval.py counts them.
func score(sum *Metrics, ranked []string, rel map[string]float64) {
	relevant := 0
	for _, r := range rel {
		if r > 0 {
			relevant++
		}
	}
	if relevant == 0 {
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
			dcg += (math.Pow(2, r) - 1) / math.Log2(float64(i)+2)
		}
		if first == 0 {
			first = i + 1
		}
	}
	gains := make([]float64, 0, len(rel))
	for _, r := range rel {
		if r > 0 {
			gains = append(gains, r)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(gains)))
	idcg := 0.0
	for i, r := range gains {
		if i == 10 {
			break
		}
		idcg += (math.Pow(2, r) - 1) / math.Log2(float64(i)+2)
	}
	sum.Recall5 += float64(hits5) / float64(relevant)
	sum.Recall10 += float64(hits10) / float64(relevant)
	if idcg > 0 {
		sum.NDCG10 += dcg / idcg
	}
	if first > 0 {
		sum.MRR += 1 / float64(first)
	}
}

// memSource serves documents already in memory as if read from a file.
type memSource []index.Doc

func (memSource) Kind() string                               { return "doc" }
func (memSource) Files(string) ([]string, error)             { return []string{"corpus.jsonl"}, nil }
func (m memSource) Docs(string, []byte) ([]index.Doc, error) { return m, nil }

func readRows(path string) ([]evalRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []evalRow
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r evalRow
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if r.ID == "" {
			return nil, fmt.Errorf("%s:%d: field \"id\" is missing", path, n+1)
		}
		out = append(out, r)
	}
	return out, nil
}

// readQrels reads query_id, doc_id and relevance per line, tab- or
// space-separated; a header line (a relevance that is not a number) is
// skipped.
func readQrels(path string) (map[string]map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		parts := strings.Fields(sc.Text())
		if len(parts) == 0 {
			continue
		}
		if len(parts) == 4 { // TREC: qid 0 doc rel
			parts = []string{parts[0], parts[2], parts[3]}
		}
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want query_id, doc_id and relevance", path, n)
		}
		rel, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			if n == 1 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: relevance %q is not a number", path, n, parts[2])
		}
		if out[parts[0]] == nil {
			out[parts[0]] = map[string]float64{}
		}
		out[parts[0]][parts[1]] = rel
	}
	return out, sc.Err()
}
