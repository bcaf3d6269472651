package index

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Texts returns the searched text (title and body, as Doc.Text) of the
// documents with these ids, by id, in one query; ids not in the index are
// absent.
func (x *Index) Texts(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := x.db.QueryContext(ctx, `SELECT id, title, body FROM docs WHERE id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var d Doc
			if err := rows.Scan(&d.ID, &d.Title, &d.Body); err != nil {
				rows.Close()
				return nil, err
			}
			out[d.ID] = d.Text()
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VectorScores returns the cosine of q with the vector of each document
// named, by id: the dense score of documents another ranking found.
// Documents without a vector of the index's model are absent.
func (x *Index) VectorScores(ctx context.Context, q []float32, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 || x.emb == nil {
		return out, nil
	}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		h, s := beginScan(q, len(chunk))
		err := x.scanRows(ctx, h, s, `FROM vectors v JOIN docs d ON d.n = v.n WHERE v.model = ? AND d.id IN (`+placeholders(len(chunk))+`)`, args...)
		endScan(h)
		if err != nil {
			return nil, err
		}
		top := s.best()
		ns := make([]int64, len(top))
		hits := make([]Hit, len(top))
		for i, sc := range top {
			ns[i], hits[i].Score = sc.n, sc.score
		}
		if err := x.fillIDs(ctx, ns, hits); err != nil {
			return nil, err
		}
		for _, h := range hits {
			out[h.ID] = h.Score
		}
	}
	return out, nil
}

// WordDF returns how many documents the index holds and, for each word (as
// embed.Words splits them), in how many of them it occurs. With the
// built-in embedder these are its fitted statistics: the word itself, as
// of the last fit. Otherwise they are BM25's: the word's stemmed term,
// counting its other forms. A word BM25's analysis drops (a stop word)
// has -1.
func (x *Index) WordDF(ctx context.Context, words []string) (docs int, df []int, err error) {
	if x.fit != nil {
		an := x.bm.Mapping().AnalyzerNamed(en.AnalyzerName)
		df = make([]int, len(words))
		for i, w := range words {
			if len(an.Analyze([]byte(w))) == 0 {
				df[i] = -1
				continue
			}
			df[i] = x.dfLookup(w)
		}
		return x.fit.docs, df, nil
	}
	stats, err := x.bm25Stats()
	if err != nil {
		return 0, nil, err
	}
	if stats != nil {
		docs = int(stats.DocCount)
	}
	adv, err := x.bm.Advanced()
	if err != nil {
		return 0, nil, fmt.Errorf("recall index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, nil, fmt.Errorf("recall index: %w", err)
	}
	defer r.Close()
	an := x.bm.Mapping().AnalyzerNamed(en.AnalyzerName)
	df = make([]int, len(words))
	for i, w := range words {
		toks := an.Analyze([]byte(w))
		if len(toks) == 0 {
			df[i] = -1
			continue
		}
		tfr, err := r.TermFieldReader(ctx, toks[0].Term, fieldText, false, false, false)
		if err != nil {
			return 0, nil, fmt.Errorf("recall index: %w", err)
		}
		df[i] = int(tfr.Count())
		tfr.Close()
	}
	return docs, df, nil
}
