package rules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// judgeOnline judges events as a stream whose reader goes online at once.
func judgeOnline(cfg Config, events []timeline.Event, end time.Time) []judge.Verdict {
	before := onlineAfter
	onlineAfter = 0
	defer func() { onlineAfter = before }()
	r := newStreamReader(cfg)
	r.Streaming(timeline.Epoch)
	for _, e := range events {
		r.Read(e)
	}
	fs := r.Facts().(facts)
	if fs.online == nil {
		return nil
	}
	return fs.online.verdicts(end)
}

func judgeBatch(cfg Config, events []timeline.Event, end time.Time) []judge.Verdict {
	j := judge.NewJudging(events, end)
	var out []judge.Verdict
	for _, r := range Rules(cfg) {
		out = append(out, r.Check(j))
	}
	return out
}

// sameVerdicts compares what a report shows of two verdicts, and the
// problems' windows (what a recording gap excuses).
func sameVerdicts(t *testing.T, what string, online, batch []judge.Verdict) {
	t.Helper()
	if len(online) != len(batch) {
		t.Fatalf("%s: %d online verdicts, %d batch", what, len(online), len(batch))
	}
	for i := range batch {
		o, b := online[i], batch[i]
		if o.Status != b.Status || o.Message != b.Message || !reflect.DeepEqual(o.Evidence, b.Evidence) ||
			!reflect.DeepEqual(o.Measures, b.Measures) || !reflect.DeepEqual(o.Problems, b.Problems) {
			t.Fatalf("%s: STALE-00%d online %s %q (evidence %d, problems %d, measures %v)\n batch %s %q (evidence %d, problems %d, measures %v)",
				what, i+1, o.Status, o.Message, len(o.Evidence), len(o.Problems), o.Measures, b.Status, b.Message, len(b.Evidence), len(b.Problems), b.Measures)
		}
	}
}

// hasProcesses tells whether a timeline has process events (online
// judging is for timelines without them).
func hasProcesses(events []timeline.Event) bool {
	for _, e := range events {
		if e.Object.Kind == timeline.KindProcess {
			return true
		}
	}
	return false
}

// Judged as it streams, a timeline without process events gets the
// verdicts the batch rules give, on random timelines of one to three
// ClusterOperators whose operators move, answer late or never, and whose
// detector challenges early or late, marks, rewrites and chatters.
func TestOnlineJudgesAsBatch(t *testing.T) {
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 7))
		b := newTimeline()
		names := []string{"etcd", "dns", "network"}[:1+rng.IntN(3)]
		now := time.Duration(0)
		for _, n := range names {
			if rng.IntN(4) == 0 { // a create step's: no operator's until one writes
				b.on(n).scenarioCreated(now.String())
				continue
			}
			b.on(n).created(now.String())
		}
		for range 5 + rng.IntN(40) {
			steps := []time.Duration{0, time.Second, 2 * time.Second, 29 * time.Second, 31 * time.Second, time.Minute, 9*time.Minute + 59*time.Second,
				10 * time.Minute, 10*time.Minute + time.Second, 15 * time.Minute, 20 * time.Minute}
			now += steps[rng.IntN(len(steps))]
			off := now.String()
			b.on(names[rng.IntN(len(names))])
			switch rng.IntN(9) {
			case 0:
				b.operator(off, message(fmt.Sprintf("Rolling out %d", rng.IntN(3)), "Progressing"))
			case 1:
				b.operator(off, status([]string{"True", "False"}[rng.IntN(2)], at(off), "Degraded"))
			case 2, 3:
				b.challenge(off)
			case 4:
				b.answer(off)
			case 5:
				b.mark(off)
			case 6:
				b.detector(off, prefix("Available"))
			case 7:
				b.operator(off, nonWatched(off))
			case 8:
				b.detector(off, reason("Other", "Available"))
			}
		}
		end := at(now.String()).Add([]time.Duration{0, time.Second, 30 * time.Second, 10 * time.Minute, time.Hour}[rng.IntN(5)])
		cfg := DefaultConfig()
		cfg.Tolerance = []time.Duration{0, time.Second, 2 * time.Second}[rng.IntN(3)]
		sameVerdicts(t, fmt.Sprintf("seed %d", seed), judgeOnline(cfg, b.events, end), judgeBatch(cfg, b.events, end))
	}
}

// A process event after the timeline went online leaves every rule not
// judged, and says why.
func TestOnlineRefusesLateProcessEvents(t *testing.T) {
	events := answering().events // starts with a process event: batch
	var late []timeline.Event
	for _, e := range events {
		if e.Object.Kind != timeline.KindProcess {
			late = append(late, e)
		}
	}
	late = append(late, timeline.Event{Time: at("30m"), Actor: "detector", Role: RoleDetector, Verb: timeline.VerbKill,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: RoleDetector}})
	for _, v := range judgeOnline(DefaultConfig(), late, at("40m")) {
		if v.Status != "skip" || v.Message == "" {
			t.Fatalf("%s %q, want not judged", v.Status, v.Message)
		}
	}
	if judgeOnline(DefaultConfig(), events, at("40m")) != nil {
		t.Error("a timeline that begins with process events went online")
	}
}
