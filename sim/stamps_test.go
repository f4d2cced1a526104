package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A subject that stamps a condition with the wall clock stops the run with
// a message that says to use the clock it was given; one that stamps with
// the run's clock, and the scenario with any time at all, do not.
func TestWallClockStampsStopTheRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		role  string
		stamp func(s *Scheduler) time.Time
		fails bool
	}{
		{"the run's clock", "operator", func(s *Scheduler) time.Time { return s.Now() }, false},
		{"the wall clock", "operator", func(*Scheduler) time.Time { return time.Now() }, true},
		{"a second ahead", "operator", func(s *Scheduler) time.Time { return s.Now().Add(time.Second) }, false},
		{"two seconds ahead", "operator", func(s *Scheduler) time.Time { return s.Now().Add(2 * time.Second) }, true},
		{"a clock set years back", "operator", func(s *Scheduler) time.Time { return timeline.Epoch.AddDate(-3, 0, 0) }, true},
		{"the scenario's own times", "scenario", func(*Scheduler) time.Time { return time.Now() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newScheduler()
			c := s.Client(newAPI(t, clusterOperator("etcd")), "writer", tc.role)
			r := newRecorder(s, func(ctx context.Context, rq reconcile.Request, _ int) (reconcile.Result, error) {
				co := &configv1.ClusterOperator{}
				if err := c.Get(ctx, rq.NamespacedName, co); err != nil {
					return reconcile.Result{}, err
				}
				co.Status.Conditions = append(co.Status.Conditions, coCondition("Available", configv1.ConditionTrue, "AsExpected", "ok", tc.stamp(s)))
				return reconcile.Result{}, c.Status().Update(ctx, co)
			})
			mustStart(t, s, Actor{Name: "writer", Role: tc.role, Reconciler: r, Initial: []reconcile.Request{req("etcd")}})
			err := s.Run(context.Background(), at(time.Minute))
			var stamp *WallClockError
			switch {
			case !tc.fails && err != nil:
				t.Fatalf("Run: %v", err)
			case tc.fails && !errors.As(err, &stamp):
				t.Fatalf("Run returned %v, want a WallClockError", err)
			case tc.fails:
				for _, want := range []string{"writer stamped ClusterOperator/etcd condition Available", "wall clock", "conformance.Instance.Clock"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not say %q", err, want)
					}
				}
			}
		})
	}
}
