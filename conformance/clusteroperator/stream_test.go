package clusteroperator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Judged as it streams past (the contract read event by event, no event
// kept), every built-in's golden timeline, and variants of them with
// events left out, roles taken away and times moved, gets the cases it
// gets when judged whole.
func TestStreamJudgesAsBatch(t *testing.T) {
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	conformancetest.GoldensStreamAsBatch(t, m, map[string]conformance.Mechanism{"2s tolerance": m.(conformance.Tolerant).WithTolerance(2 * time.Second)})
}

// What a stream of seed 001 keeps, reported, not asserted (go test -bench
// StreamRetained -run '^$' -short): of events its rules do not read (the
// Leases of a busy namespace), nothing; of a component's hours of life
// (hours), no more than a reaction measured and a version named now and
// then: B-growth/event, against B-growth/event-if-held for the events.
func BenchmarkStreamRetained(b *testing.B) {
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	b.Run("unread", func(b *testing.B) { conformancetest.ReportRetained(b, m, 10000, unread) })
	b.Run("hours", func(b *testing.B) {
		var h hours
		conformancetest.ReportRetained(b, m, 10000, h.next)
	})
}

// unread is the i-th write of a busy namespace's Leases, which no rule
// reads.
func unread(i int) timeline.Event {
	return timeline.Event{Seq: i + 1, Time: timeline.Epoch.Add(time.Duration(i) * time.Second), Actor: "operator/x", Role: "operator", Verb: timeline.VerbUpdate,
		Object: timeline.ObjectRef{Group: "coordination.k8s.io", Kind: "Lease", Namespace: "x", Name: fmt.Sprintf("lease-%d", i%10)}}
}

// A stream keeps nothing of the events no rule reads: a busy namespace's
// Leases cost nothing however many pass.
func TestStreamKeepsNothingUnread(t *testing.T) {
	conformancetest.Bounded(t, clusteroperator.Mechanism(clusteroperator.DefaultConfig()), 10000, unread)
}

// A stream keeps what a component is, not what it did: ten times as many
// hours of its life (about 140 events an hour: an upgrade, status writes
// every minute, outages, an administrator's blocker; 100 hours, then
// 1,000) cost no more than a reaction measured and a version named now
// and then, well under 8 bytes an event (the contract once kept each
// write, about 1,585 bytes).
func TestStreamIsBounded(t *testing.T) {
	var h hours
	conformancetest.Bounded(t, clusteroperator.Mechanism(clusteroperator.DefaultConfig()), 14000, h.next)
}

// The hours TestStreamIsBounded streams are a component's life that
// passes every rule (a failure keeps its evidence: a stream that fails
// may grow), and every rule judges something in their first ten hours
// but CO-008 (no rollout stalls) and CO-024 (nothing fails).
func TestHoursPass(t *testing.T) {
	var h hours
	end := timeline.Epoch.Add(10 * time.Hour)
	var events []timeline.Event
	for i := 0; ; i++ {
		e := h.next(i)
		if !e.Time.Before(end) {
			break
		}
		events = append(events, e)
	}
	if n := len(events); n < 1300 || n > 1500 {
		t.Errorf("%d events in 10 hours, want about 1400 (TestStreamIsBounded)", n)
	}
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	for _, c := range judge.JudgeWith(m.Rules(), judge.NewJudging(events, end)) {
		switch {
		case c.Status == reports.Fail || c.Status == reports.Warn:
			t.Errorf("%s %s: %s", c.Rule, c.Status, c.Message)
		case c.Status == reports.Skip && c.Rule != "CO-008" && c.Rule != "CO-024":
			t.Errorf("%s not judged: %s", c.Rule, c.Message)
		}
	}
}
