package index

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Candidate is what re-ranking reads of a document another ranking
// found: what the priors need, its searched text (title and body, as
// Doc.Text) and the cosine of its vector with the query's.
type Candidate struct {
	Meta
	Text string
	// Dense is the cosine; HasDense is false when the document has no
	// vector of the index's model (or the index has no embedder).
	Dense    float64
	HasDense bool
}

// Candidates reads the documents with these ids, by id, in one query per
// 500; ids not in the index are absent. q may be nil: no cosines.
func (x *Index) Candidates(ctx context.Context, q []float32, ids []string) (map[string]Candidate, error) {
	out := make(map[string]Candidate, len(ids))
	var h int64
	if q != nil && x.emb != nil {
		h, _ = beginScan(q, 0)
		defer endScan(h)
	}
	model := ""
	if x.emb != nil {
		model = x.emb.ID()
	}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, 0, len(chunk)+2)
		args = append(args, h, model)
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := x.db.QueryContext(ctx, `SELECT d.id, d.kind, d.approved, d.created, d.title, d.body, CASE WHEN v.vec IS NULL OR ?1 = 0 THEN NULL ELSE memctl_dot(v.vec, ?1) END
  FROM docs d LEFT JOIN vectors v ON v.n = d.n AND v.model = ?2 WHERE d.id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var d Doc
			var approved int
			var created int64
			var dense sql.NullFloat64
			if err := rows.Scan(&d.ID, &d.Kind, &approved, &created, &d.Title, &d.Body, &dense); err != nil {
				rows.Close()
				return nil, err
			}
			c := Candidate{Meta: Meta{Kind: d.Kind, Approved: approved == 1}, Text: d.Text(), Dense: dense.Float64, HasDense: dense.Valid}
			if created != 0 {
				c.Created = time.Unix(created, 0).UTC()
			}
			out[d.ID] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
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
