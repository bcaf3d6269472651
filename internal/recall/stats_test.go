package recall

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBootstrapMean(t *testing.T) {
	t.Parallel()
	t.Run("a constant sample has a point interval", func(t *testing.T) {
		got := BootstrapMean([]float64{0.5, 0.5, 0.5}, 0.95, 1000, Seed)
		if got != (Interval{0.5, 0.5}) {
			t.Errorf("got %v, want [0.5, 0.5]", got)
		}
	})
	t.Run("an empty sample has the zero interval", func(t *testing.T) {
		if got := BootstrapMean(nil, 0.95, 1000, Seed); got != (Interval{}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("the same seed gives the same interval", func(t *testing.T) {
		xs := coinFlips(100, 7)
		a, b := BootstrapMean(xs, 0.95, 2000, Seed), BootstrapMean(xs, 0.95, 2000, Seed)
		if a != b {
			t.Errorf("%v != %v", a, b)
		}
	})
	t.Run("a large sample's interval is mean ± 1.96 standard errors", func(t *testing.T) {
		// 400 values, half 0 and half 1: mean 0.5, standard deviation
		// 0.5 (population), standard error 0.5/20 = 0.025, so the normal
		// interval is 0.5 ± 0.049.
		xs := make([]float64, 400)
		for i := range 200 {
			xs[i] = 1
		}
		got := BootstrapMean(xs, 0.95, Resamples, Seed)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"lo", got.Lo, 0.451}, {"hi", got.Hi, 0.549}} {
			if math.Abs(c.got-c.want) > 0.004 {
				t.Errorf("%s = %.4f, want %.3f ± 0.004", c.name, c.got, c.want)
			}
		}
	})
	t.Run("the interval narrows with more queries", func(t *testing.T) {
		prev := math.Inf(1)
		for _, n := range []int{25, 100, 400, 1600} {
			ci := BootstrapMean(coinFlips(n, 3), 0.95, 2000, Seed)
			w := ci.Hi - ci.Lo
			if w >= prev {
				t.Errorf("n = %d: width %.4f, not narrower than %.4f", n, w, prev)
			}
			prev = w
		}
		if prev > 0.06 {
			t.Errorf("width at n = 1600 is %.4f, want about 2·1.96·0.5/40 = 0.049", prev)
		}
	})
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.25, 2}, {0.5, 3}, {0.1, 1.4}, {0.975, 4.9}, {1, 5}} {
		if got := quantile(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestPairedTest(t *testing.T) {
	t.Parallel()
	t.Run("identical scores give p = 1 and no difference", func(t *testing.T) {
		a := coinFlips(200, 5)
		got := PairedTest(a, a, 0.95, 1000, Seed)
		if got.P != 1 || got.Diff != 0 || got.CI != (Interval{}) {
			t.Errorf("got %+v, want p = 1, diff 0, [0, 0]", got)
		}
	})
	t.Run("a constant positive difference gives p at its floor", func(t *testing.T) {
		a, b := make([]float64, 50), make([]float64, 50)
		for i := range a {
			a[i], b[i] = 0.6, 0.5
		}
		got := PairedTest(a, b, 0.95, 1000, Seed)
		// Only the observed pattern (and its mirror, 2/2^50 likely) is as
		// extreme: p = 1/(1000+1).
		if got.P != 1.0/1001 {
			t.Errorf("p = %v, want %v", got.P, 1.0/1001)
		}
		if math.Abs(got.Diff-0.1) > 1e-12 || math.Abs(got.CI.Lo-0.1) > 1e-12 || math.Abs(got.CI.Hi-0.1) > 1e-12 {
			t.Errorf("diff %v %v, want 0.1 [0.1, 0.1]", got.Diff, got.CI)
		}
	})
	t.Run("exact: differences 1, 2, 3 by hand", func(t *testing.T) {
		// The 8 sign patterns of ±1 ±2 ±3 sum to ±6, ±4, ±2, 0, 0: two
		// of eight are as far from 0 as the observed 6, so p = 0.25. A
		// zero difference flips to itself and changes nothing.
		got := PairedTest([]float64{1, 2, 3, 0}, []float64{0, 0, 0, 0}, 0.95, 1000, Seed)
		if got.P != 0.25 {
			t.Errorf("p = %v, want 0.25", got.P)
		}
		if got.Diff != 1.5 {
			t.Errorf("diff = %v, want 6/4 = 1.5", got.Diff)
		}
	})
	t.Run("exact: differences 1, 2, -3 by hand", func(t *testing.T) {
		// The observed sum is 0: every pattern is as extreme.
		got := PairedTest([]float64{1, 2, 0}, []float64{0, 0, 3}, 0.95, 1000, Seed)
		if got.P != 1 {
			t.Errorf("p = %v, want 1", got.P)
		}
	})
	t.Run("sampled p agrees with the normal approximation", func(t *testing.T) {
		// 100 differences of ±1 with 60 positive: mean 0.2, and under
		// the null the sum of random signs has standard deviation
		// sqrt(100) = 10, so the observed 20 is z = 2: p ≈ 0.0455 (with
		// the continuity of the ±2 lattice, P(|S| ≥ 20) = 0.057).
		a, b := make([]float64, 100), make([]float64, 100)
		for i := range a {
			if i < 60 {
				a[i] = 1
			} else {
				b[i] = 1
			}
		}
		got := PairedTest(a, b, 0.95, Resamples, Seed)
		if math.Abs(got.P-0.057) > 0.008 {
			t.Errorf("p = %.4f, want 0.057 ± 0.008", got.P)
		}
		if math.Abs(got.Diff-0.2) > 1e-12 {
			t.Errorf("diff = %v, want 0.2", got.Diff)
		}
	})
	t.Run("the sign of the difference does not change p", func(t *testing.T) {
		a, b := coinFlips(300, 11), coinFlips(300, 12)
		ab, ba := PairedTest(a, b, 0.95, 2000, Seed), PairedTest(b, a, 0.95, 2000, Seed)
		if ab.P != ba.P || ab.Diff != -ba.Diff {
			t.Errorf("a−b %+v, b−a %+v", ab, ba)
		}
	})
}

// coinFlips are n values of 0 or 1 from a seeded generator.
func coinFlips(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(rng.IntN(2))
	}
	return xs
}
