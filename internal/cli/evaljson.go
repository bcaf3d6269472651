package cli

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/memctl/memctl/internal/recall"
)

// evalSchemaVersion is eval retrieval's schema_version: 2 since its
// figures are per corpus (1 had one corpus's modes at the top).
const evalSchemaVersion = 2

// evalJSON is the --json shape of eval retrieval.
type evalJSON struct {
	SchemaVersion int              `json:"schema_version"`
	Embedder      string           `json:"embedder"`
	GroupBy       string           `json:"group_by"`
	Confidence    float64          `json:"confidence"`
	Resamples     int              `json:"resamples"`
	Seed          int              `json:"seed"`
	Corpora       []evalCorpusJSON `json:"corpora"`
}

type evalCorpusJSON struct {
	Name     string               `json:"name"`
	Dir      string               `json:"dir"`
	Queries  int                  `json:"queries"`
	Docs     int                  `json:"docs"`
	Groups   int                  `json:"groups"`
	Modes    []evalModeJSON       `json:"modes"`
	Compared []evalComparisonJSON `json:"compared"`
}

// evalModeJSON is one mode's metrics, means over the judged queries.
type evalModeJSON struct {
	Mode     string     `json:"mode"`
	Recall5  float64    `json:"recall@5"`
	Recall10 float64    `json:"recall@10"`
	NDCG10   float64    `json:"ndcg@10"`
	NDCG10CI [2]float64 `json:"ndcg@10_ci"`
	MRR      float64    `json:"mrr"`
}

// evalComparisonJSON is a mode against the baseline on per-query nDCG@10.
type evalComparisonJSON struct {
	Mode     string     `json:"mode"`
	Baseline string     `json:"baseline"`
	Metric   string     `json:"metric"`
	Diff     float64    `json:"diff"`
	CI       [2]float64 `json:"ci"`
	P        float64    `json:"p"`
}

func r4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func toEvalJSON(emb, groupBy string, reps []recall.EvalReport) evalJSON {
	out := evalJSON{SchemaVersion: evalSchemaVersion, Embedder: emb, GroupBy: groupBy,
		Confidence: recall.Level, Resamples: recall.Resamples, Seed: recall.Seed, Corpora: make([]evalCorpusJSON, 0, len(reps))}
	for _, r := range reps {
		c := evalCorpusJSON{Name: r.Corpus.Name, Dir: filepath.ToSlash(r.Corpus.Dir), Queries: r.Queries, Docs: r.Docs, Groups: r.Groups,
			Modes: make([]evalModeJSON, 0, len(r.Modes)), Compared: make([]evalComparisonJSON, 0, len(r.Compared))}
		for _, m := range r.Modes {
			c.Modes = append(c.Modes, evalModeJSON{Mode: m.Mode, Recall5: r4(m.Mean.Recall5), Recall10: r4(m.Mean.Recall10),
				NDCG10: r4(m.Mean.NDCG10), NDCG10CI: [2]float64{r4(m.NDCG10CI.Lo), r4(m.NDCG10CI.Hi)}, MRR: r4(m.Mean.MRR)})
		}
		for _, p := range r.Compared {
			c.Compared = append(c.Compared, evalComparisonJSON{Mode: p.Mode, Baseline: p.Baseline, Metric: "ndcg@10",
				Diff: r4(p.Diff), CI: [2]float64{r4(p.CI.Lo), r4(p.CI.Hi)}, P: r4(p.P)})
		}
		out.Corpora = append(out.Corpora, c)
	}
	return out
}

// writeEvalTable prints the figures: what ran, one row per corpus and
// mode, then each corpus's comparisons with bm25.
func writeEvalTable(env *Env, emb, groupBy string, reps []recall.EvalReport) error {
	grouped := ""
	if groupBy != "" {
		grouped = ", one index per " + groupBy
	}
	fmt.Fprintf(env.Out, "embedder %s%s; %.0f%% intervals from %d bootstrap resamples (seed %d)\n",
		visibleLine(emb), visibleLine(grouped), recall.Level*100, recall.Resamples, recall.Seed)
	for _, r := range reps {
		fmt.Fprintf(env.Out, "%s: %d queries, %d documents in %d groups\n", visibleLine(r.Corpus.Name), r.Queries, r.Docs, r.Groups)
	}
	t := newTable(env, "CORPUS", "MODE", "RECALL@5", "RECALL@10", "NDCG@10", "95% INTERVAL", "MRR")
	for _, r := range reps {
		for _, m := range r.Modes {
			t.row(r.Corpus.Name, m.Mode, f4(m.Mean.Recall5), f4(m.Mean.Recall10), f4(m.Mean.NDCG10),
				fmt.Sprintf("[%s, %s]", f4(m.NDCG10CI.Lo), f4(m.NDCG10CI.Hi)), f4(m.Mean.MRR))
		}
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, r := range reps {
		for _, c := range r.Compared {
			_, err := fmt.Fprintf(env.Out, "%s: %s − %s nDCG@10 %+.4f [%+.4f, %+.4f], p %s\n",
				visibleLine(r.Corpus.Name), c.Mode, c.Baseline, c.Diff, c.CI.Lo, c.CI.Hi, pValue(c.P))
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func f4(x float64) string { return fmt.Sprintf("%.4f", x) }

// pValue prints "= p" to 4 decimals, or "< 0.0001" below that: the
// sampled test's smallest p is 1/(resamples+1).
func pValue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("= %.4f", p)
}
