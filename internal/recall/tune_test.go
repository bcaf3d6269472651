package recall

// The fusion's weights were chosen with these two tests (docs/recall.md,
// "How the ranking was chosen"). TestTuneDump indexes each corpus shape
// of a LoCoMo-style benchmark (MEMCTL_LOCOMO=dir: the turns, facts/ and
// sessions/), one index per conversation, and writes every query's
// candidates (the union of BM25's and dense's top 100) with their raw
// signals as gob to MEMCTL_TUNE_OUT. TestTuneGrid (MEMCTL_TUNE_IN) then
// scores a grid of settings from that file in memory and picks one by
// leave-one-conversation-out cross-validation. Neither runs without its
// variables: the benchmark's data is not ours to ship.

import (
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
)

type tuneCand struct {
	ID      string
	BM25    float64
	BMRank  int // 1-based; 0 = not matched
	Dense   float64
	DRank   int
	MaxSim  float64
	Best    []float32 // per query word: its best cosine (1 exact)
	StemHit []bool    // unused
}

type tuneQuery struct {
	ID, Conv, Corpus string
	Rel              map[string]float64
	Cands            []tuneCand
	QIDF             []float64
}

func TestTuneDump(t *testing.T) {
	dir, out := os.Getenv("MEMCTL_LOCOMO"), os.Getenv("MEMCTL_TUNE_OUT")
	if dir == "" || out == "" {
		t.Skip("MEMCTL_LOCOMO and MEMCTL_TUNE_OUT not set")
	}
	ctx := context.Background()
	queries, err := readRows(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var all []tuneQuery
	for _, c := range []struct{ name, dir string }{{"turns", dir}, {"facts", filepath.Join(dir, "facts")}, {"sessions", filepath.Join(dir, "sessions")}} {
		corpus, err := readRows(filepath.Join(c.dir, "corpus.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		qrels, err := readQrels(filepath.Join(c.dir, "qrels.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		groups := map[string][]index.Doc{}
		for _, r := range corpus {
			g := r.group("conv")
			groups[g] = append(groups[g], index.Doc{ID: r.ID, Kind: "doc", Ref: r.ID, Body: r.Text, File: "corpus.jsonl", Priority: -1})
		}
		var convs []string
		for g := range groups {
			convs = append(convs, g)
		}
		sort.Strings(convs)
		for _, g := range convs {
			docs := groups[g]
			x, err := index.Open(ctx, index.Options{Dir: filepath.Join(t.TempDir(), "x"), Embedder: embed.NewStatic(embed.Corpus{})})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Update(ctx, dir, []index.Source{memSource(docs)}); err != nil {
				t.Fatal(err)
			}
			body := map[string]string{}
			for _, d := range docs {
				body[d.ID] = d.Body
			}
			for _, q := range queries {
				if q.group("conv") != g || len(qrels[q.ID]) == 0 {
					continue
				}
				words, err := x.SearchWords(ctx, q.Text, index.Filter{}, 2000)
				if err != nil {
					t.Fatal(err)
				}
				qv, err := x.EmbedQuery(ctx, q.Text)
				if err != nil {
					t.Fatal(err)
				}
				dense, err := x.SearchVector(ctx, qv, index.Filter{}, 2000)
				if err != nil {
					t.Fatal(err)
				}
				byID := map[string]*tuneCand{}
				for i, h := range dense {
					byID[h.ID] = &tuneCand{ID: h.ID, Dense: h.Score, DRank: i + 1}
				}
				for i, h := range words {
					c := byID[h.ID]
					c.BM25, c.BMRank = h.Score, i+1
				}
				m, err := newMatcher(ctx, x, q.Text)
				if err != nil {
					t.Fatal(err)
				}
				tq := tuneQuery{ID: q.ID, Conv: g, Corpus: c.name, Rel: qrels[q.ID], QIDF: m.idf}
				for _, cand := range byID {
					if (cand.BMRank == 0 || cand.BMRank > 100) && cand.DRank > 100 {
						continue
					}
					best := m.best(body[cand.ID])
					cand.MaxSim = m.score(body[cand.ID])
					for _, b := range best {
						cand.Best = append(cand.Best, float32(b))
					}
					tq.Cands = append(tq.Cands, *cand)
				}
				sort.Slice(tq.Cands, func(a, b int) bool { return tq.Cands[a].ID < tq.Cands[b].ID })
				all = append(all, tq)
			}
			x.Close()
		}
		t.Logf("%s: done", c.name)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gob.NewEncoder(f).Encode(all); err != nil {
		t.Fatal(err)
	}
}
