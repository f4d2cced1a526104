package olm_test

import (
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/sim/timeline"
)

// Judged as it streams past (the story replayed event by event, no event
// kept beyond the writes the rules read), every built-in's golden
// timeline, and variants of them with events left out, roles taken away
// and times moved, gets the cases it gets when judged whole, with the
// reference's reaction bound and a tight one.
func TestStreamJudgesAsBatch(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	conformancetest.GoldensStreamAsBatch(t, m, map[string]*conformance.Mechanism{"1s reaction": m.WithReaction(time.Second)})
}

// What a stream of seed 002 keeps, reported, not asserted (go test -bench
// StreamRetained -run '^$' -short): of the markers no rule reads (an
// expectation's check), nothing; of a Probe's writes, each write and the
// world after it (B-growth/event): the rules judge each change's interval.
func BenchmarkStreamRetained(b *testing.B) {
	m := olm.Mechanism(olm.DefaultConfig())
	at := func(i int) time.Time { return timeline.Epoch.Add(time.Duration(i) * time.Second) }
	probe := timeline.ObjectRef{Group: "operators.coreos.com", Kind: "Probe", Namespace: "ns", Name: "p"}
	b.Run("markers", func(b *testing.B) { conformancetest.ReportRetained(b, m, 10000, marker) })
	b.Run("probe-writes", func(b *testing.B) {
		conformancetest.ReportRetained(b, m, 10000, func(i int) timeline.Event {
			status := []string{"True", "False"}[i%2]
			return timeline.Event{Seq: i + 1, Time: at(i), Actor: "aggregator", Role: "aggregator", Verb: timeline.VerbUpdateStatus, Object: probe,
				Conditions: []timeline.ConditionChange{{Type: "Upgradeable", After: &timeline.Condition{Type: "Upgradeable", Status: status, LastTransitionTime: at(i)}}}}
		})
	})
}

// marker is the i-th check of an expectation on a Probe, which no rule
// reads.
func marker(i int) timeline.Event {
	return timeline.Event{Seq: i + 1, Time: timeline.Epoch.Add(time.Duration(i) * time.Second), Actor: "scenario", Verb: timeline.VerbExpect,
		Object: timeline.ObjectRef{Group: "operators.coreos.com", Kind: "Probe", Namespace: "ns", Name: "p"}}
}

// A stream keeps nothing of the events no rule reads: an expectation's
// checks cost nothing however many pass (what the rules read, the writes
// of the world's objects, is kept: BenchmarkStreamRetained).
func TestStreamKeepsNothingUnread(t *testing.T) {
	conformancetest.Bounded(t, olm.Mechanism(olm.DefaultConfig()), 10000, marker)
}
