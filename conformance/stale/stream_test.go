package stale_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/sim/timeline"
)

// Judged as it streams past, a fleet of ClusterOperators whose detector
// challenges each and whose operators answer a second later, round after
// round, is judged in memory that does not grow with the rounds: past the
// facts the reader keeps before it judges online (80,000 events here),
// the rules keep each operator's state, not its writes.
func TestStreamIsBounded(t *testing.T) {
	const fleet = 10
	healthy := []timeline.Condition{{Type: "Available", Status: "True", Reason: "AsExpected", Message: "All is well", LastTransitionTime: timeline.Epoch}}
	challenged := []timeline.Condition{{Type: "Available", Status: "True", Reason: "AsExpected",
		Message: "Operator checking for stale status, the active operator will reset this message: All is well", LastTransitionTime: timeline.Epoch}}
	conformancetest.Bounded(t, stale.Mechanism(stale.DefaultConfig()), 8000, func(i int) timeline.Event {
		round, k := i/(2*fleet), i%(2*fleet)
		name := fmt.Sprintf("operator-%02d", k/2)
		ref := timeline.ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: name}
		at := timeline.Epoch.Add(time.Duration(round)*(10*time.Minute+2*time.Second) + time.Duration(k)*time.Second)
		if k%2 == 0 {
			return timeline.Event{Seq: i + 1, Time: at, Actor: "detector", Role: "detector", Verb: timeline.VerbUpdateStatus, Object: ref,
				Conditions: timeline.Diff(healthy, challenged)}
		}
		return timeline.Event{Seq: i + 1, Time: at, Actor: "operator/" + name, Role: "operator", Verb: timeline.VerbUpdateStatus, Object: ref,
			Conditions: timeline.Diff(challenged, healthy)}
	})
}
