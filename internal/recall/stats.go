package recall

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The statistics of an evaluation: how far a mean over a sample of
// queries can be trusted, and whether one ranking beats another on the
// same queries by more than chance. Both resample with a fixed seed, so
// the same runs give the same figures every time.

// Resamples is how many bootstrap resamples and random sign flips the
// evaluation draws: enough that the interval's ends and a p-value near
// 0.05 move by well under 0.001 from one seed to another.
const Resamples = 10_000

// Seed seeds the evaluation's resampling.
const Seed = 1

// exactFlips is the largest number of non-zero differences whose 2^n sign
// patterns PairedTest enumerates instead of sampling.
const exactFlips = 16

// Interval is a confidence interval of a mean.
type Interval struct {
	Lo, Hi float64
}

// BootstrapMean is the percentile bootstrap interval of the mean of xs at
// the given level (0.95): the means of resamples samples drawn from xs
// with replacement, cut at (1 − level)/2 and (1 + level)/2. It is [x, x]
// for a constant sample and the zero Interval for an empty one.
func BootstrapMean(xs []float64, level float64, resamples int, seed uint64) Interval {
	n := len(xs)
	if n == 0 || resamples <= 0 {
		return Interval{}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	means := make([]float64, resamples)
	for r := range means {
		s := 0.0
		for range n {
			s += xs[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	slices.Sort(means)
	return Interval{quantile(means, (1-level)/2), quantile(means, (1+level)/2)}
}

// quantile of sorted xs, interpolated between the two nearest ranks (R's
// type 7, numpy's default).
func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Paired compares two rankings' per-query scores on the same queries.
type Paired struct {
	// Diff is the mean of a − b, and CI its bootstrap interval.
	Diff float64
	CI   Interval
	// P is the two-sided p-value of the paired sign-flip (randomisation)
	// test: the chance that a and b, scoring alike but for noise, differ
	// on average by at least |Diff|.
	P float64
}

// PairedTest compares a and b, which score the same queries in the same
// order. Under the hypothesis that the two rankings are exchangeable, each
// per-query difference is as likely negative as positive; the p-value is
// the share of sign patterns whose mean difference is at least as far from
// zero as the one observed. With at most 16 non-zero differences every
// pattern is counted (exact); otherwise resamples random patterns are
// drawn, and the observed one counts too, so p is never 0: the smallest is
// 1/(resamples+1). Identical scores give p = 1.
func PairedTest(a, b []float64, level float64, resamples int, seed uint64) Paired {
	n := min(len(a), len(b))
	d := make([]float64, n)
	sum := 0.0
	for i := range n {
		d[i] = a[i] - b[i]
		sum += d[i]
	}
	if n == 0 {
		return Paired{P: 1}
	}
	out := Paired{Diff: sum / float64(n), CI: BootstrapMean(d, level, resamples, seed)}
	// Zero differences flip to themselves: leave them out of the
	// patterns (the mean's denominator stays n).
	nz := make([]float64, 0, n)
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	obs := math.Abs(sum) * (1 - 1e-9) // ties with the observed sum count as extreme
	if len(nz) <= exactFlips {
		out.P = exactSignFlip(nz, obs)
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	extreme := 1 // the observed pattern
	for range resamples {
		s := 0.0
		for _, x := range nz {
			if rng.Uint64()&1 == 1 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= obs {
			extreme++
		}
	}
	out.P = float64(extreme) / float64(resamples+1)
	return out
}

// exactSignFlip is the share of the 2^len(d) sign patterns of d whose sum
// is at least obs in absolute value.
func exactSignFlip(d []float64, obs float64) float64 {
	patterns := 1 << len(d)
	extreme := 0
	for p := range patterns {
		s := 0.0
		for i, x := range d {
			if p&(1<<i) != 0 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= obs {
			extreme++
		}
	}
	return float64(extreme) / float64(patterns)
}
