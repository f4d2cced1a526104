package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// benchEvents is how many events BenchmarkAnalyze judges;
// OPCERT_BENCH_EVENTS changes it (docs/concepts/performance.md gives the figure for 1,000,000).
func benchEvents() int {
	if n, err := strconv.Atoi(os.Getenv("OPCERT_BENCH_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchTimeline writes (once, then reuses) a stale timeline of n events:
// 35 ClusterOperators of four conditions each, the detector challenging
// each every 10 minutes and its operator answering 1s later, every message
// prefixed and reset: about 1.4 KB an event, as a recording of a healthy
// fleet looks, for n/70 cycles.
func benchTimeline(tb testing.TB, n int) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("opcert-analyze-bench-%d.jsonl", n))
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return path
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	const fleet = 35
	conds := func(ltt time.Time, prefix string) []timeline.Condition {
		return []timeline.Condition{
			{Type: "Available", Status: "True", Reason: "AsExpected", Message: prefix + "All is well", LastTransitionTime: ltt},
			{Type: "Degraded", Status: "False", Reason: "AsExpected", Message: prefix + "No problems", LastTransitionTime: ltt},
			{Type: "Progressing", Status: "False", Reason: "AsExpected", Message: prefix + "Desired and current version match", LastTransitionTime: ltt},
			{Type: "Upgradeable", Status: "True", Reason: "AsExpected", Message: prefix + "Safe to upgrade", LastTransitionTime: ltt},
		}
	}
	const challenge = "Operator checking for stale status, the active operator will reset this message: "
	seq := 0
	emit := func(e timeline.Event) {
		seq++
		e.Seq = seq
		if err := enc.Encode(e); err != nil {
			tb.Fatal(err)
		}
	}
	healthy := conds(timeline.Epoch, "")
	challenged := conds(timeline.Epoch, challenge)
	for i := 0; seq < n; i++ {
		// Each cycle challenges operator o at 2o seconds and hears its
		// answer a second later; the next comes 10m after that answer.
		base := timeline.Epoch.Add(time.Duration(i) * (10*time.Minute + time.Second))
		for o := 0; o < fleet && seq < n; o++ {
			name := fmt.Sprintf("operator-%02d", o)
			ref := timeline.ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: name}
			at := base.Add(time.Duration(2*o) * time.Second)
			if i == 0 {
				emit(timeline.Event{Time: at.Add(time.Second), Actor: "operator/" + name, Role: "operator", Verb: timeline.VerbCreate, Object: ref,
					Conditions: timeline.Diff(nil, healthy)})
				continue
			}
			emit(timeline.Event{Time: at, Actor: "detector", Role: "detector", Verb: timeline.VerbUpdateStatus,
				Object: ref, Conditions: timeline.Diff(healthy, challenged)})
			if seq < n {
				emit(timeline.Event{Time: at.Add(time.Second), Actor: "operator/" + name, Role: "operator", Verb: timeline.VerbUpdateStatus,
					Object: ref, Conditions: timeline.Diff(challenged, healthy)})
			}
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// peakHeap samples the live heap while f runs and returns its peak: what
// judging holds, as opposed to what it allocates and frees.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				metrics.Read(sample)
				mu.Lock()
				peak = max(peak, sample[0].Value.Uint64())
				mu.Unlock()
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkAnalyze judges a million-event stale timeline as opcert
// analyze does (the tolerance scanned ahead, then record.Open and
// record.Judge: read, classify, judge as the events pass; the report's
// copy of the file left out), and reports events per second, the
// peak heap (live and not yet collected) and what is held once every
// event is read (after a collection): what grows with the file. The
// figure of docs/concepts/performance.md:
//
//	go test -run '^$' -bench Analyze -benchtime 1x ./cmd/opcert/
func BenchmarkAnalyze(b *testing.B) {
	n := benchEvents()
	path := benchTimeline(b, n)
	fi, _ := os.Stat(path)
	m := stale.Mechanism(stale.DefaultConfig())
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	var run reports.Run
	var peak, held uint64
	for b.Loop() {
		runtime.GC()
		peak = max(peak, peakHeap(func() {
			in, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			src, err := record.Open(in, conformance.RecordingOf(m))
			if err != nil {
				b.Fatal(err)
			}
			tol, err := scanTolerance(context.Background(), path, -1) // as opcert analyze does, ahead
			if err != nil {
				b.Fatal(err)
			}
			measure := func() {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				held = max(held, ms.HeapAlloc)
			}
			if run, err = record.Judge(context.Background(), src, conformance.Judged(m), record.Judgement{Name: "bench", Source: path, Tolerance: tol, AfterRead: measure}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	if run.Recording.Events != int64(n) {
		b.Fatalf("judged %d events, want %d", run.Recording.Events, n)
	}
	for _, c := range run.Cases {
		if c.Status == reports.Fail {
			b.Fatalf("%s failed on the reference's timeline: %s", c.Rule, c.Message)
		}
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(n)/per, "events/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(held)/(1<<20), "held-MiB")
	b.ReportMetric(float64(held)/float64(n), "held-B/event")
}

// BenchmarkAnalyzeHeld judges the same timeline as BenchmarkAnalyze (a
// ClusterOperator fleet, about 1.4 KB an event as JSON) with each
// mechanism's rules, and reports what is held once every event is read
// and the peak heap while judging (both above what was live before):
// a mechanism whose rules read events one at a time (judge.Online)
// holds what its readers keep; the others hold the events until the
// rules run at the end. The figures of docs/concepts/performance.md:
//
//	OPCERT_BENCH_EVENTS=100000 go test -run '^$' -bench AnalyzeHeld -benchtime 1x ./cmd/opcert/
func BenchmarkAnalyzeHeld(b *testing.B) {
	n := benchEvents()
	path := benchTimeline(b, n)
	mechs, err := addMechanismFlags(pflag.NewFlagSet("bench", pflag.ContinueOnError)).build()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range sortedNames(mechs) {
		m := mechs[name]
		b.Run(name, func(b *testing.B) {
			var held, peak uint64
			for b.Loop() {
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				peak = max(peak, peakHeap(func() {
					in, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					src, err := record.Open(in, nil)
					if err != nil {
						b.Fatal(err)
					}
					tol, err := scanTolerance(context.Background(), path, -1)
					if err != nil {
						b.Fatal(err)
					}
					measure := func() {
						runtime.GC()
						var ms runtime.MemStats
						runtime.ReadMemStats(&ms)
						if ms.HeapAlloc > base.HeapAlloc {
							held = max(held, ms.HeapAlloc-base.HeapAlloc)
						}
					}
					if _, err := record.Judge(context.Background(), src, conformance.Judged(m), record.Judgement{Name: "bench", Source: path, Tolerance: tol, AfterRead: measure}); err != nil {
						b.Fatal(err)
					}
					in.Close()
				})-base.HeapAlloc)
			}
			b.ReportMetric(float64(held)/(1<<20), "held-MiB")
			b.ReportMetric(float64(held)/float64(n), "held-B/event")
			b.ReportMetric(float64(peak)/float64(n), "peak-B/event")
		})
	}
}
