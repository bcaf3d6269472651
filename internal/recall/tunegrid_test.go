package recall

import (
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

type tuneSetting struct {
	name       string
	wB, wD, wM float64
	bNorm      string // max, minmax
	dNorm      string // minmax, raw
	mNorm      string // raw, minmax, max
	rrf        bool
	tau        float64 // best cosines below are 0
	idfPow     float64
	pow        float64 // cosines raised to this power
}

func (s tuneSetting) String() string {
	if s.name != "" {
		return s.name
	}
	return fmt.Sprintf("b%.2f/d%.2f/m%.2f %s/%s/%s tau=%.2f idf^%.1f cos^%.1f", s.wB, s.wD, s.wM, s.bNorm, s.dNorm, s.mNorm, s.tau, s.idfPow, s.pow)
}

func norm(xs []float64, how string) {
	if len(xs) == 0 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	switch how {
	case "max":
		if hi > 0 {
			for i := range xs {
				xs[i] /= hi
			}
		}
	case "minmax":
		if hi > lo {
			for i := range xs {
				xs[i] = (xs[i] - lo) / (hi - lo)
			}
		} else {
			for i := range xs {
				xs[i] = 0
			}
		}
	}
}

func tuneNDCG(q tuneQuery, s tuneSetting) float64 {
	n := len(q.Cands)
	b, d, m := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, c := range q.Cands {
		if c.BMRank > 0 && c.BMRank <= 100 {
			b[i] = c.BM25
		}
		d[i] = c.Dense // known for every candidate, as recall computes it
		m[i] = variantMaxSim(q, c, s)
	}
	total := make([]float64, n)
	if s.rrf {
		for i, c := range q.Cands {
			if c.BMRank > 0 && c.BMRank <= 100 {
				total[i] += s.wB / (60 + float64(c.BMRank))
			}
			if c.DRank <= 100 {
				total[i] += s.wD / (60 + float64(c.DRank))
			}
		}
	} else {
		norm(b, s.bNorm)
		norm(d, s.dNorm)
		norm(m, s.mNorm)
		for i := range total {
			total[i] = s.wB*b[i] + s.wD*d[i] + s.wM*m[i]
		}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, c int) bool {
		if total[idx[a]] != total[idx[c]] {
			return total[idx[a]] > total[idx[c]]
		}
		return q.Cands[idx[a]].ID < q.Cands[idx[c]].ID
	})
	ranked := make([]string, 0, 10)
	for _, i := range idx[:min(10, n)] {
		ranked = append(ranked, q.Cands[i].ID)
	}
	var mt Metrics
	score(&mt, ranked, q.Rel)
	return mt.NDCG10
}

func TestTuneGrid(t *testing.T) {
	in := os.Getenv("MEMCTL_TUNE_IN")
	if in == "" {
		t.Skip("MEMCTL_TUNE_IN not set")
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	var qs []tuneQuery
	if err := gob.NewDecoder(f).Decode(&qs); err != nil {
		t.Fatal(err)
	}
	f.Close()
	corpora := []string{"turns", "facts", "sessions"}
	convs := map[string]bool{}
	for _, q := range qs {
		convs[q.Conv] = true
	}
	var convList []string
	for c := range convs {
		convList = append(convList, c)
	}
	sort.Strings(convList)

	var settings []tuneSetting
	settings = append(settings, tuneSetting{name: "bm25", wB: 1, bNorm: "max"}, tuneSetting{name: "dense", wD: 1, dNorm: "raw"},
		tuneSetting{name: "rrf", wB: 1, wD: 1, rrf: true}, tuneSetting{name: "maxsim", wM: 1, mNorm: "raw"})
	step := 0.05
	if v := os.Getenv("MEMCTL_TUNE_STEP"); v != "" {
		fmt.Sscan(v, &step)
	}
	floats := func(k, d string) []float64 {
		var out []float64
		for _, f := range strings.Split(envOr(k, d), ",") {
			var x float64
			fmt.Sscan(f, &x)
			out = append(out, x)
		}
		return out
	}
	for _, bn := range strings.Split(envOr("MEMCTL_TUNE_BNORM", "max"), ",") {
		for _, dn := range strings.Split(envOr("MEMCTL_TUNE_DNORM", "minmax"), ",") {
			for _, mn := range strings.Split(envOr("MEMCTL_TUNE_MNORM", "raw"), ",") {
				for _, tau := range floats("MEMCTL_TUNE_TAU", "0") {
					for _, ip := range floats("MEMCTL_TUNE_IDFPOW", "1") {
						for _, pw := range floats("MEMCTL_TUNE_POW", "1") {
							for wb := 0.0; wb <= 1+1e-9; wb += step {
								for wm := 0.0; wb+wm <= 1+1e-9; wm += step {
									settings = append(settings, tuneSetting{wB: wb, wM: wm, wD: math.Max(0, 1-wb-wm), bNorm: bn, dNorm: dn, mNorm: mn, tau: tau, idfPow: ip, pow: pw})
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d settings, %d queries", len(settings), len(qs))
	// per setting, per corpus, per conv: sum and count of ndcg
	type key struct{ corpus, conv string }
	sums := make([]map[key]float64, len(settings))
	counts := map[key]int{}
	for _, q := range qs {
		counts[key{q.Corpus, q.Conv}]++
	}
	for i, s := range settings {
		sums[i] = map[key]float64{}
		for _, q := range qs {
			sums[i][key{q.Corpus, q.Conv}] += tuneNDCG(q, s)
		}
	}
	// mean over corpora of the corpus mean, restricted to convs.
	var objective func(i int, use func(string) bool) (float64, map[string]float64)
	objective = func(i int, use func(string) bool) (float64, map[string]float64) {
		per := map[string]float64{}
		total := 0.0
		for _, c := range corpora {
			s, n := 0.0, 0
			for _, cv := range convList {
				if use(cv) {
					s += sums[i][key{c, cv}]
					n += counts[key{c, cv}]
				}
			}
			per[c] = s / float64(n)
			total += per[c]
		}
		return total / float64(len(corpora)), per
	}
	all := func(string) bool { return true }
	// With MEMCTL_TUNE_SMOOTH, a setting is judged by the mean objective of
	// its neighbourhood (weights within one step, same variant): the
	// centre of a plateau, not the edge of a peak.
	if os.Getenv("MEMCTL_TUNE_SMOOTH") != "" {
		raw := objective
		objective = func(i int, use func(string) bool) (float64, map[string]float64) {
			if i < 4 {
				return raw(i, use)
			}
			var tot float64
			n := 0
			si := settings[i]
			for j := 4; j < len(settings); j++ {
				sj := settings[j]
				if math.Abs(sj.wB-si.wB) > step+1e-9 || math.Abs(sj.wM-si.wM) > step+1e-9 || sj.tau != si.tau || sj.idfPow != si.idfPow || sj.pow != si.pow || sj.bNorm != si.bNorm || sj.dNorm != si.dNorm || sj.mNorm != si.mNorm {
					continue
				}
				o, _ := raw(j, use)
				tot += o
				n++
			}
			_, per := raw(i, use)
			return tot / float64(n), per
		}
	}
	for i := range 4 {
		_, per := objective(i, all)
		t.Logf("%-10s turns %.4f facts %.4f sessions %.4f", settings[i], per["turns"], per["facts"], per["sessions"])
	}
	// Leave one conversation out.
	cvSum := map[string]float64{}
	cvN := map[string]int{}
	for _, held := range convList {
		best, bestObj := -1, -1.0
		for i := 4; i < len(settings); i++ {
			o, _ := objective(i, func(c string) bool { return c != held })
			if o > bestObj {
				best, bestObj = i, o
			}
		}
		_, per := objective(best, func(c string) bool { return c == held })
		t.Logf("held %s: chose %v (train %.4f); held-out turns %.4f facts %.4f sessions %.4f", held, settings[best], bestObj, per["turns"], per["facts"], per["sessions"])
		for _, c := range corpora {
			cvSum[c] += sums[best][key{c, held}]
			cvN[c] += counts[key{c, held}]
		}
	}
	t.Logf("CV: turns %.4f facts %.4f sessions %.4f", cvSum["turns"]/float64(cvN["turns"]), cvSum["facts"]/float64(cvN["facts"]), cvSum["sessions"]/float64(cvN["sessions"]))
	// Best overall, and its neighbourhood.
	order := make([]int, 0, len(settings))
	for i := 4; i < len(settings); i++ {
		order = append(order, i)
	}
	objs := make([]float64, len(settings))
	for _, i := range order {
		objs[i], _ = objective(i, all)
	}
	sort.Slice(order, func(a, b int) bool { return objs[order[a]] > objs[order[b]] })
	for _, i := range order[:15] {
		_, per := objective(i, all)
		t.Logf("%.4f %v: turns %.4f facts %.4f sessions %.4f", objs[i], settings[i], per["turns"], per["facts"], per["sessions"])
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func variantMaxSim(q tuneQuery, c tuneCand, s tuneSetting) float64 {
	if s.idfPow == 0 && s.pow == 0 {
		return c.MaxSim
	}
	var sum, tot float64
	for i, b := range c.Best {
		w := math.Pow(q.QIDF[i], s.idfPow)
		x := float64(b)
		if x < s.tau {
			x = 0
		} else if x < 1 && s.pow != 1 {
			x = math.Pow(x, s.pow)
		}
		sum += w * x
		tot += w
	}
	if tot == 0 {
		return 0
	}
	return sum / tot
}
