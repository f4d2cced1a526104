package conformance

import (
	"context"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Every fault the scenario format accepts, the simulator injects as the
// step says: the two lists of codes (scenarios.APICodes, sim.APIFault)
// agree.
func TestEveryAPIErrorsStepTheFormatTakesIsInjected(t *testing.T) {
	calls := map[string]sim.Calls{scenarios.OnReads: sim.Reads, scenarios.OnWrites: sim.Writes, scenarios.OnAll: sim.Reads | sim.Writes}
	for code := range scenarios.APICodes {
		for on, want := range calls {
			if code == 409 && on != scenarios.OnWrites {
				continue // the format refuses it: 409 answers writes only
			}
			s := &scene{sched: sim.NewScheduler(sim.NewClock(), &timeline.Timeline{}), faults: map[*scenarios.APIErrors]*sim.Fault{}}
			x := &scenarios.APIErrors{Role: "operator", On: on, Code: code}
			var retry time.Duration
			if code == 429 || code == 504 {
				retry = 5 * time.Second
				x.RetryAfter = &scenarios.Duration{Duration: retry}
			}
			if err := s.failCalls(context.Background(), x); err != nil {
				t.Errorf("%d on %s: %v", code, on, err)
				continue
			}
			if f := s.faults[x]; f == nil || !reflect.DeepEqual(f.APIFault, sim.APIFault{Role: "operator", Calls: want, Code: code, RetryAfter: retry}) {
				t.Errorf("%d on %s: in force as %+v", code, on, f)
			}
		}
	}
}

// A step's kinds, Kind or Kind.group, are the fault's group kinds.
func TestAPIErrorsKindsAreInjected(t *testing.T) {
	s := &scene{sched: sim.NewScheduler(sim.NewClock(), &timeline.Timeline{}), faults: map[*scenarios.APIErrors]*sim.Fault{}}
	x := &scenarios.APIErrors{Role: "operator", On: scenarios.OnWrites, Code: 500, Kinds: []string{"Pod", "DaemonSet.apps", "ClusterOperator.config.openshift.io"}}
	if err := s.failCalls(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	want := []schema.GroupKind{{Kind: "Pod"}, {Group: "apps", Kind: "DaemonSet"}, {Group: "config.openshift.io", Kind: "ClusterOperator"}}
	if f := s.faults[x]; f == nil || !reflect.DeepEqual(f.Kinds, want) {
		t.Errorf("in force as %+v, want kinds %v", f, want)
	}
}
