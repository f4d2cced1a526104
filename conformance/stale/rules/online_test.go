package rules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// judgeOnline judges events as a stream whose rules' tolerance is fixed
// does (reader.Streaming): each fact judged once its instant has passed.
func judgeOnline(cfg Config, events []timeline.Event, end time.Time) []judge.Verdict {
	r := newReader(cfg)
	r.Streaming(timeline.Epoch)
	for _, e := range events {
		r.Read(e)
	}
	return r.judged.verdicts(end)
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

// Judged as it streams, a timeline gets the verdicts it gets held whole,
// on random timelines of one to three ClusterOperators whose operators
// move, answer late or never, die, hang and fail their calls, and whose
// detector challenges early or late, marks, rewrites, chatters and dies:
// with no process event of the detector, judged as they pass from the
// first fact on (onlineAfter 0: as a long recording is).
func TestOnlineJudgesAsBatch(t *testing.T) {
	before := onlineAfter
	onlineAfter = 0
	defer func() { onlineAfter = before }()
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 7))
		b := newTimeline()
		names := []string{"etcd", "dns", "network"}[:1+rng.IntN(3)]
		processes := rng.IntN(2) == 0
		if processes {
			b.detectorStarts("0s")
		}
		now := time.Duration(0)
		for _, n := range names {
			if rng.IntN(4) == 0 { // a create step's: no operator's until one writes
				b.on(n).scenarioCreated(now.String())
				continue
			}
			b.on(n).start(now.String()).created(now.String())
		}
		for range 5 + rng.IntN(40) {
			steps := []time.Duration{0, time.Second, 2 * time.Second, 29 * time.Second, 31 * time.Second, time.Minute, 9*time.Minute + 59*time.Second,
				10 * time.Minute, 10*time.Minute + time.Second, 15 * time.Minute, 20 * time.Minute}
			now += steps[rng.IntN(len(steps))]
			off := now.String()
			b.on(names[rng.IntN(len(names))])
			n := 9
			if processes {
				n = 12
			}
			switch rng.IntN(n) {
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
			case 9:
				b.process(off, []string{timeline.VerbKill, timeline.VerbStart, timeline.VerbHang, timeline.VerbReconnect, timeline.VerbFault, timeline.VerbClear}[rng.IntN(6)])
			default:
				b.detectorProcess(off, []string{timeline.VerbKill, timeline.VerbStart, timeline.VerbHang, timeline.VerbReconnect, timeline.VerbFault, timeline.VerbClear}[rng.IntN(6)])
			}
		}
		end := at(now.String()).Add([]time.Duration{0, time.Second, 30 * time.Second, 10 * time.Minute, time.Hour}[rng.IntN(5)])
		cfg := DefaultConfig()
		cfg.Tolerance = []time.Duration{0, time.Second, 2 * time.Second}[rng.IntN(3)]
		sameVerdicts(t, fmt.Sprintf("seed %d", seed), judgeOnline(cfg, b.events, end), judgeBatch(cfg, b.events, end))
	}
}

// A detector that comes up after a stream judged its facts with it up
// throughout (a recording without process events, onlineAfter facts
// long) leaves every rule not judged, and says why; one that died says
// nothing the facts did not assume.
func TestOnlineRefusesALateDetector(t *testing.T) {
	before := onlineAfter
	onlineAfter = 0
	defer func() { onlineAfter = before }()
	tl := newTimeline().created("0s").challenge("10m").answer("10m2s").detectorDies("15m")
	for _, v := range judgeOnline(DefaultConfig(), tl.events, at("40m")) {
		if v.Status == "skip" && strings.HasPrefix(v.Message, "not judged") {
			t.Fatalf("%s %q: a detector's death broke the judging", v.Status, v.Message)
		}
	}
	tl.detectorStarts("20m")
	for _, v := range judgeOnline(DefaultConfig(), tl.events, at("40m")) {
		if v.Status != "skip" || !strings.Contains(v.Message, "not judged: a process event (detector start at +20m0s) came after 3 ClusterOperator writes") {
			t.Fatalf("%s %q, want not judged", v.Status, v.Message)
		}
	}
}
