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
	conformancetest.GoldensStreamAsBatch(t, m, map[string]conformance.Mechanism{"1s reaction": m.(conformance.Reactive).WithReaction(time.Second)})
}

// What a stream of seed 002 keeps, reported, not asserted (go test -bench
// StreamRetained -run '^$' -short): of the markers no rule reads (an
// expectation's check), nothing; of the aggregator's writes of a Probe no
// Upgrade or OperatorCondition names, each write (B-growth/event): OLM-009
// judges them against the names that come later (TestStreamIsBounded: a
// named Probe's writes cost nothing).
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

// A long run is judged in memory that does not grow with it: the seed's
// example (its Probe named by the Upgrade from its CSV, which the gate
// lets through once the CR's migration ends), then the CR's migration
// starting and ending every minute and the aggregator following a second
// later, round after round, keeps what the rules judge (the world, the
// open intervals, the reactions' counts), not the writes.
func TestStreamIsBounded(t *testing.T) {
	var seed []timeline.Event
	for _, g := range conformancetest.GoldenTimelines(t) {
		if g.Name == "olm-seed-example" {
			seed = g.Events
		}
	}
	if len(seed) < 16 || seed[12].Seq != 13 || seed[15].Seq != 16 {
		t.Fatalf("olm-seed-example: %d events, want its setup and Upgrade (seq 1-13) and the migration's end (seq 14-16)", len(seed))
	}
	setup := append(append([]timeline.Event(nil), seed[:10]...), seed[11:16]...)
	ended := seed[13:15]
	conformancetest.Bounded(t, olm.Mechanism(olm.DefaultConfig()), 5000, func(i int) timeline.Event {
		if i < len(setup) {
			return setup[i]
		}
		round, k := (i-len(setup))/2, (i-len(setup))%2
		at := timeline.Epoch.Add(time.Duration(round+6)*time.Minute + time.Duration(k)*time.Second)
		e := toggled(ended[k], round%2 == 0, at)
		e.Seq = i + 1
		return e
	})
}

// toggled is e at a new time: the change it records, or its reverse,
// each condition that changes status stamped with the time.
func toggled(e timeline.Event, reverse bool, at time.Time) timeline.Event {
	e.Time = at
	conds := make([]timeline.ConditionChange, len(e.Conditions))
	for i, ch := range e.Conditions {
		if reverse {
			ch.Before, ch.After = ch.After, ch.Before
		}
		if ch.After != nil && ch.Before != nil && ch.After.Status != ch.Before.Status {
			after := *ch.After
			after.LastTransitionTime = at
			ch.After = &after
		}
		conds[i] = ch
	}
	e.Conditions = conds
	if reverse {
		fields := make([]timeline.FieldChange, len(e.Fields))
		for i, f := range e.Fields {
			f.Before, f.After = f.After, f.Before
			fields[i] = f
		}
		e.Fields = fields
	}
	return e
}
