package judge

import (
	"slices"
	"testing"
	"time"
)

// Past exactLatencies, the times are counted in 1% buckets: the memory
// held stops growing, count and max stay exact, p50 and p99 are within 1%.
func TestLatenciesBounded(t *testing.T) {
	var l Latencies
	var all []time.Duration
	for i := range 200_000 {
		x := time.Duration(1+i%997)*time.Millisecond + time.Duration(i%13)*time.Microsecond
		l.Add(x)
		all = append(all, x)
	}
	if len(l.exact) != 0 || len(l.buckets) > 1000 {
		t.Fatalf("%d kept, %d buckets: not bounded", len(l.exact), len(l.buckets))
	}
	exact := Latencies{exact: all, n: len(all), max: slices.Max(all)}
	got, want := l.Measure("ClusterOperator/etcd", time.Second), exact.Measure("ClusterOperator/etcd", time.Second)
	if got.Count != want.Count || got.Max != want.Max {
		t.Errorf("count or max: got %+v, want %+v", got, want)
	}
	for _, p := range [][2]time.Duration{{got.P50, want.P50}, {got.P99, want.P99}} {
		if p[0] < p[1] || float64(p[0]) > float64(p[1])*1.0101 {
			t.Errorf("percentile %s, exactly %s: not within 1%%", p[0], p[1])
		}
	}
}

// Nothing measured is a count of zero; a few times give nearest-rank
// percentiles, exactly.
func TestLatenciesMeasure(t *testing.T) {
	var l Latencies
	if m := l.Measure("none", time.Second); m.Count != 0 || m.P50 != 0 || m.Budget != time.Second {
		t.Errorf("nothing added: %+v", m)
	}
	for _, d := range []time.Duration{3, 1, 4, 1, 5} {
		l.Add(d * time.Second)
	}
	m := l.Measure("five", 10*time.Second)
	if m.Count != 5 || m.P50 != 3*time.Second || m.P99 != 5*time.Second || m.Max != 5*time.Second {
		t.Errorf("five added: %+v, want count 5, p50 3s, p99 5s, max 5s", m)
	}
}
