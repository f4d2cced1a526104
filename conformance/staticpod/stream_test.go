package staticpod_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/sim/timeline"
)

// Judged as it streams past (the facts read event by event, no event
// kept), every built-in's golden timeline, and variants of them with
// events left out, roles taken away and times moved, gets the cases it
// gets when judged whole, with the reference's reaction bound, a tight
// one, and a recording's tolerance.
func TestStreamJudgesAsBatch(t *testing.T) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	conformancetest.GoldensStreamAsBatch(t, m, map[string]conformance.Mechanism{"1s reaction": m.(conformance.Reactive).WithReaction(time.Second), "2s tolerance": m.(conformance.Tolerant).WithTolerance(2 * time.Second)})
}

// What a stream of seed 003 keeps, reported, not asserted (go test -bench
// StreamRetained -run '^$' -short): of a node whose operand answers its
// probes steadily, only the latest answers; of mirror pod writes, each
// write and the pod after it (B-growth/event): the rules look back along
// them.
func BenchmarkStreamRetained(b *testing.B) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	at := func(i int) time.Time { return timeline.Epoch.Add(time.Duration(i) * time.Second) }
	b.Run("probes", func(b *testing.B) { conformancetest.ReportRetained(b, m, 10000, steadyProbe) })
	b.Run("mirror-pods", func(b *testing.B) {
		conformancetest.ReportRetained(b, m, 10000, func(i int) timeline.Event {
			status := []string{"True", "False"}[i%2]
			return timeline.Event{Seq: i + 1, Time: at(i), Actor: "kubelet/node-a", Role: "kubelet", Verb: timeline.VerbUpdateStatus,
				Object:     timeline.ObjectRef{Kind: "Pod", Namespace: "openshift-kube-apiserver", Name: fmt.Sprintf("kube-apiserver-node-%d", i%3)},
				Conditions: []timeline.ConditionChange{{Type: "Ready", After: &timeline.Condition{Type: "Ready", Status: status, LastTransitionTime: at(i)}}}}
		})
	})
}

// steadyProbe is the i-th answer of a node's operand to its health probe,
// steadily healthy.
func steadyProbe(i int) timeline.Event {
	return timeline.Event{Seq: i + 1, Time: timeline.Epoch.Add(time.Duration(i) * time.Second), Actor: "operand/node-a", Role: "operand", Verb: timeline.VerbProbe, Detail: "200 OK",
		Object: timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: fmt.Sprintf("node-%d", i%3), Name: "kube-apiserver/healthz"}}
}

// A stream keeps only the latest of a node's steady probe answers: they
// cost nothing however many pass (what the rules look back along, the
// mirror pods' and ClusterOperator's writes, is kept:
// BenchmarkStreamRetained).
func TestStreamKeepsLatestProbes(t *testing.T) {
	conformancetest.Bounded(t, staticpod.Mechanism(staticpod.DefaultConfig()), 10000, steadyProbe)
}
