package clusteroperator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
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
// Leases and ConfigMaps of a busy namespace), nothing; of a
// ClusterOperator's writes, each write and its conditions
// (B-growth/event): the contract rules look back along them.
func BenchmarkStreamRetained(b *testing.B) {
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	at := func(i int) time.Time { return timeline.Epoch.Add(time.Duration(i) * time.Second) }
	b.Run("unread", func(b *testing.B) { conformancetest.ReportRetained(b, m, 10000, unread) })
	b.Run("writes", func(b *testing.B) {
		conformancetest.ReportRetained(b, m, 10000, func(i int) timeline.Event {
			status := []string{"True", "False"}[i%2]
			return timeline.Event{Seq: i + 1, Time: at(i), Actor: "operator/x", Role: "operator", Verb: timeline.VerbUpdateStatus,
				Object:     timeline.ObjectRef{Group: "config.openshift.io", Kind: "ClusterOperator", Name: fmt.Sprintf("component-%d", i%10)},
				Conditions: []timeline.ConditionChange{{Type: "Progressing", After: &timeline.Condition{Type: "Progressing", Status: status, Reason: "AsExpected", LastTransitionTime: at(i)}}}}
		})
	})
}

// unread is the i-th write of a busy namespace's Leases, which no rule
// reads.
func unread(i int) timeline.Event {
	return timeline.Event{Seq: i + 1, Time: timeline.Epoch.Add(time.Duration(i) * time.Second), Actor: "operator/x", Role: "operator", Verb: timeline.VerbUpdate,
		Object: timeline.ObjectRef{Group: "coordination.k8s.io", Kind: "Lease", Namespace: "x", Name: fmt.Sprintf("lease-%d", i%10)}}
}

// A stream keeps nothing of the events no rule reads: a busy namespace's
// Leases cost nothing however many pass (what the rules read, the
// ClusterOperator's writes, is kept: BenchmarkStreamRetained).
func TestStreamKeepsNothingUnread(t *testing.T) {
	conformancetest.Bounded(t, clusteroperator.Mechanism(clusteroperator.DefaultConfig()), 10000, unread)
}
