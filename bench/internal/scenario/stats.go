package scenario

import (
	"math"
	"slices"
	"time"
)

// Latency summarises a latency distribution.
type Latency struct {
	Min  time.Duration `json:"min_ns"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p99_9_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Summarize returns the distribution of samples, or nil when there is none.
// It sorts samples in place.
func Summarize(samples []time.Duration) *Latency {
	if len(samples) == 0 {
		return nil
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	return &Latency{
		Min:  samples[0],
		Mean: sum / time.Duration(len(samples)),
		P50:  Quantile(samples, 0.50),
		P90:  Quantile(samples, 0.90),
		P99:  Quantile(samples, 0.99),
		P999: Quantile(samples, 0.999),
		Max:  samples[len(samples)-1],
	}
}

// Quantile returns the q-quantile (0 < q <= 1) of sorted samples by the
// nearest-rank method: the smallest sample with at least q of all samples
// at or below it.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(n) - 1e-9)) // tolerate float noise in q*n
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}
