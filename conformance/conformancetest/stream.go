package conformancetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// GoldenTimeline is a built-in scenario's golden timeline (testdata/golden
// of the test package) and the instant its run ended.
type GoldenTimeline struct {
	// Name is the built-in scenario's name.
	Name string
	// Events are the golden timeline's events, in order.
	Events []timeline.Event
	// End is the instant the golden run ended.
	End time.Time
}

// GoldenTimelines reads the golden timelines of the test package kept
// whole (one kept by digest has no events to read).
func GoldenTimelines(t testing.TB) []GoldenTimeline {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no golden timelines")
	}
	var out []GoldenTimeline
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		sc, err := scenarios.BuiltinNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := timeline.ReadJSONL(in)
		in.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, GoldenTimeline{Name: name, Events: tl.Events(), End: timeline.Epoch.Add(sc.Duration.Duration)})
	}
	return out
}

// StreamsAsBatch fails t unless m judges events as they stream past
// (judge.Stream: its Online facts, no event kept) as it judges them
// whole (judge.Judge), case by case: a stream whose tolerance is measured
// as it passes, and one given its tolerance ahead (as opcert analyze and
// watch give it), whose readers may judge as the events pass.
func StreamsAsBatch(t testing.TB, m conformance.Mechanism, what string, events []timeline.Event, end time.Time) {
	t.Helper()
	if s, ok := m.(conformance.Streaming); !ok || len(s.Online()) == 0 {
		t.Fatalf("mechanism %s has no Online facts", m.Name())
	}
	want := judge.JudgeWith(m.Rules(), judge.NewJudging(events, end))
	for _, ahead := range []bool{false, true} {
		s := judge.NewStream(conformance.Rulebook(m))
		s.Start = timeline.Epoch
		if ahead {
			s.Tolerate(0)
		}
		for _, e := range events {
			s.Add(e)
		}
		got, _ := s.Judge(end)
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s %s (tolerance given ahead: %t): streamed %s %q (evidence %d), whole %s %q (evidence %d)", what, want[i].Rule, ahead,
					got[i].Status, got[i].Message, len(got[i].Evidence), want[i].Status, want[i].Message, len(want[i].Evidence))
			}
		}
	}
}

// GoldensStreamAsBatch checks StreamsAsBatch on every golden timeline of
// the test package (GoldenTimelines) judged by m and by each of its
// variants (a reaction bound, a recording's tolerance: named for the
// failures), and on four mutants of each (Mutate) judged by m.
func GoldensStreamAsBatch(t *testing.T, m conformance.Mechanism, variants map[string]conformance.Mechanism) {
	t.Helper()
	for _, g := range GoldenTimelines(t) {
		StreamsAsBatch(t, m, g.Name, g.Events, g.End)
		for name, v := range variants {
			StreamsAsBatch(t, v, g.Name+" ("+name+")", g.Events, g.End)
		}
		for seed := range uint64(4) {
			events, end := Mutate(g.Events, g.End, seed)
			StreamsAsBatch(t, m, fmt.Sprintf("%s (mutant %d)", g.Name, seed), events, end)
		}
	}
}

// Mutate is a variant of a timeline, made by seed: some events left out,
// some roles taken from their writes, the rest delayed by up to a minute
// (times kept in order), the end moved by as much. Streamed and whole,
// such a timeline must still be judged alike, whatever its verdicts.
func Mutate(events []timeline.Event, end time.Time, seed uint64) ([]timeline.Event, time.Time) {
	rng := rand.New(rand.NewPCG(seed, 21))
	out := make([]timeline.Event, 0, len(events))
	var shift time.Duration
	for _, e := range events {
		switch rng.IntN(10) {
		case 0:
			continue
		case 1:
			e.Role = ""
		case 2:
			shift += time.Duration(rng.IntN(60)) * time.Second
		}
		e.Time = e.Time.Add(shift)
		out = append(out, e)
	}
	return out, end.Add(shift)
}

// Retained is the heap a stream of m keeps after reading n events made by
// next (its index in), measured after a garbage collection: what a
// benchmark reports to show that a stream's memory does not grow with the
// events it reads. The stream's tolerance is given ahead, as opcert
// analyze and watch give it (judge.Stream.Tolerate), so that readers that
// judge as the events pass do.
func Retained(m conformance.Mechanism, n int, next func(i int) timeline.Event) uint64 {
	return retained(conformance.Rulebook(m), n, next)
}

// retained is Retained of a stream judging with book.
func retained(book judge.Rulebook, n int, next func(i int) timeline.Event) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := judge.NewStream(book)
	s.Start = timeline.Epoch
	s.Tolerate(0)
	for i := range n {
		s.Add(next(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// ReportRetained runs Retained for n and 10n events and reports both in
// b, with the growth per event, and the same for a stream of m without
// its Online facts (which keeps every event), to compare: a growth about
// zero says the events cost nothing held.
func ReportRetained(b *testing.B, m conformance.Mechanism, n int, next func(i int) timeline.Event) {
	book := conformance.Rulebook(m)
	held := book
	held.Online = nil
	var small, large, heldSmall, heldLarge uint64
	for b.Loop() {
		small, large = retained(book, n, next), retained(book, 10*n, next)
		heldSmall, heldLarge = retained(held, n, next), retained(held, 10*n, next)
	}
	b.ReportMetric(float64(small), fmt.Sprintf("B-retained/%d-events", n))
	b.ReportMetric(float64(large), fmt.Sprintf("B-retained/%d-events", 10*n))
	b.ReportMetric((float64(large)-float64(small))/float64(9*n), "B-growth/event")
	b.ReportMetric((float64(heldLarge)-float64(heldSmall))/float64(9*n), "B-growth/event-if-held")
}

// maxGrowth is the most a bounded stream may keep per event read past the
// first n, in bytes: what a reaction time measured costs until
// judge.Latencies counts them in buckets, well under the hundreds of bytes
// an event held costs.
const maxGrowth = 8

// Bounded fails t unless a stream of m keeps about as much after 10n
// events of next as after n (Retained: the heap after a collection, never
// a time): next is a repeating pattern of what m's rules read, so that a
// reader keeping what they look back along grows with it, and one bounded
// by the objects does not. The pattern must pass m's rules: a failure
// keeps its evidence, as its verdict shows it.
func Bounded(t *testing.T, m conformance.Mechanism, n int, next func(i int) timeline.Event) {
	t.Helper()
	small, large := Retained(m, n, next), Retained(m, 10*n, next)
	growth := (float64(large) - float64(small)) / float64(9*n)
	if growth > maxGrowth {
		t.Errorf("%s: a stream kept %d bytes after %d events, %d after %d: %.1f bytes an event more, want at most %d",
			m.Name(), small, n, large, 10*n, growth, maxGrowth)
	}
	t.Logf("%s: %d bytes kept after %d events, %d after %d (%.2f B/event)", m.Name(), small, n, large, 10*n, growth)
}
