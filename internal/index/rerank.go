package index

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Candidate is what re-ranking reads of a document a ranking found: what
// the priors need, and its searched text (title and body, as Doc.Text).
type Candidate struct {
	Meta
	Text string
}

// Candidates reads the documents with these ids, by id, in one query per
// 500; ids not in the index are absent.
func (x *Index) Candidates(ctx context.Context, ids []string) (map[string]Candidate, error) {
	out := make(map[string]Candidate, len(ids))
	err := x.byIDs(ctx, ids, func(in string) string {
		return `SELECT id, kind, approved, created, title, body FROM docs WHERE id IN (` + in + `)`
	}, nil, nil, func(rows *sql.Rows) error {
		var d Doc
		var approved int
		var created int64
		if err := rows.Scan(&d.ID, &d.Kind, &approved, &created, &d.Title, &d.Body); err != nil {
			return err
		}
		out[d.ID] = Candidate{Meta: newMeta(d.Kind, approved, created), Text: d.Text()}
		return nil
	})
	return out, err
}

// VectorScores returns the cosine of q with the vector of each document
// named, by id: the dense score of a candidate the dense ranking did not
// list. Documents without a vector of the index's model are absent.
func (x *Index) VectorScores(ctx context.Context, q []float32, ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 || q == nil || x.emb == nil {
		return out, nil
	}
	h, _ := beginScan(q, 0)
	defer endScan(h)
	err := x.byIDs(ctx, ids, func(in string) string {
		return `SELECT d.id, memctl_dot(v.vec, ?1) FROM docs d JOIN vectors v ON v.n = d.n AND v.model = ?2 WHERE d.id IN (` + in + `)`
	}, []any{h, x.emb.ID()}, nil, func(rows *sql.Rows) error {
		var id string
		var cos float64
		if err := rows.Scan(&id, &cos); err != nil {
			return err
		}
		out[id] = cos
		return nil
	})
	return out, err
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
