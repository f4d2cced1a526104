package judge

import (
	"math"
	"slices"
	"time"

	"github.com/opcert/opcert/reports"
)

// exactLatencies is how many reaction times Latencies keeps as they are. Past it they are counted in buckets 1% wide, so that a
// timeline of any length (opcert analyze of a months-long recording) is
// judged in bounded memory: count and max stay exact, p50 and p99 are then
// good to 1%.
const exactLatencies = 8192

// bucketBase is the ratio of a bucket's upper bound to its lower one.
const bucketBase = 1.01

// Latencies are reaction times a rule measured (an operator's answer
// times, how long after a change a subject reflected it), summed up as a
// report's measure (Measure) so that a team sees how close to the bound
// it came. Memory stays bounded however many are added.
type Latencies struct {
	exact   []time.Duration
	buckets map[int]int // past exactLatencies: bucket -> count
	n       int
	max     time.Duration
}

// Add notes one reaction time.
func (l *Latencies) Add(d time.Duration) {
	l.n++
	l.max = max(l.max, d)
	if l.buckets == nil && len(l.exact) < exactLatencies {
		l.exact = append(l.exact, d)
		return
	}
	if l.buckets == nil {
		l.buckets = map[int]int{}
		for _, e := range l.exact {
			l.buckets[bucket(e)]++
		}
		l.exact = nil
	}
	l.buckets[bucket(d)]++
}

// bucket is the index of the bucket d falls in; 0 and less share one.
func bucket(d time.Duration) int {
	if d <= 0 {
		return math.MinInt
	}
	return int(math.Floor(math.Log(float64(d)) / math.Log(bucketBase)))
}

// upper is a bucket's upper bound.
func upper(b int) time.Duration {
	if b == math.MinInt {
		return 0
	}
	return time.Duration(math.Pow(bucketBase, float64(b+1)))
}

// Count is how many reaction times were added.
func (l *Latencies) Count() int { return l.n }

// Measure sums the latencies up under name, against the budget a rule
// allows them (none added: a count of zero), with nearest-rank percentiles: exact while every time is
// kept, a bucket's upper bound (never above the max) past that.
func (l *Latencies) Measure(name string, budget time.Duration) reports.Measure {
	m := reports.Measure{Name: name, Count: l.n, Max: l.max, Budget: budget}
	if l.n == 0 {
		return m
	}
	rank := func(p float64) int { return max(0, min(int(p*float64(l.n)+0.999999)-1, l.n-1)) }
	if l.buckets == nil {
		s := slices.Clone(l.exact)
		slices.Sort(s)
		m.P50, m.P99 = s[rank(0.50)], s[rank(0.99)]
		return m
	}
	keys := make([]int, 0, len(l.buckets))
	for b := range l.buckets {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	at := func(r int) time.Duration {
		seen := 0
		for _, b := range keys {
			if seen += l.buckets[b]; seen > r {
				return min(upper(b), l.max)
			}
		}
		return l.max
	}
	m.P50, m.P99 = at(rank(0.50)), at(rank(0.99))
	return m
}
