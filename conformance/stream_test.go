package conformance_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// A timeline judged as it streams past (the mechanism's online facts, no
// events kept) gets the cases it gets when judged whole, on every golden
// timeline of the built-in stale scenarios, variants of them with events
// left out, roles taken away and times moved, and with a recording's
// tolerance.
func TestStreamJudgesAsBatch(t *testing.T) {
	m := stale.Mechanism(stale.DefaultConfig())
	conformancetest.GoldensStreamAsBatch(t, m, map[string]conformance.Mechanism{"2s tolerance": m.(conformance.Tolerant).WithTolerance(2 * time.Second)})
}

// So it does when the tolerance is given ahead, as opcert analyze gives
// it (judge.Stream.Tolerate): the STALE rules then judge each write as it
// passes, with the process events, rather than at the end.
func TestStreamJudgesAsBatchAsTheEventsPass(t *testing.T) {
	m := stale.Mechanism(stale.DefaultConfig())
	for _, g := range conformancetest.GoldenTimelines(t) {
		for seed := range uint64(5) {
			events, end, what := g.Events, g.End, g.Name
			if seed > 0 {
				events, end = conformancetest.Mutate(g.Events, g.End, seed)
				what = fmt.Sprintf("%s (mutant %d)", g.Name, seed)
			}
			for _, tol := range []time.Duration{0, 2 * time.Second} {
				s := judge.NewStream(conformance.Rulebook(m))
				s.Start = timeline.Epoch
				s.Tolerate(tol)
				for _, e := range events {
					s.Add(e)
				}
				got, _ := s.Judge(end)
				want := judge.JudgeWith(m.(conformance.Tolerant).WithTolerance(tol).Rules(), judge.NewJudging(events, end))
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("%s, tolerance %s, %s: streamed %s %q, whole %s %q", what, tol, want[i].Rule,
							got[i].Status, got[i].Message, want[i].Status, want[i].Message)
					}
				}
			}
		}
	}
}
