package sim

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// In real time the scheduler waits for deadlines on the wall clock, and a
// write it did not make, once observed, wakes the actors that watch it.
func TestRealtimeWaitsAndObserves(t *testing.T) {
	tl := &timeline.Timeline{}
	s := NewRealtime(tl)
	if !s.Realtime() {
		t.Fatal("not real time")
	}
	start := time.Now()
	ticks := newRecorder(s, func(_ context.Context, r reconcile.Request, n int) (reconcile.Result, error) {
		if r.Name == "tick" && n < 3 {
			return reconcile.Result{RequeueAfter: 50 * time.Millisecond}, nil
		}
		return reconcile.Result{}, nil
	})
	mustStart(t, s, Actor{Name: "ticker", Reconciler: ticks, Initial: []reconcile.Request{req("tick")},
		Watches: []Watch{{GVK: coGVK, Name: "seen"}}})

	// Someone else writes "seen" while the run sleeps.
	go func() {
		time.Sleep(100 * time.Millisecond)
		s.Observe(context.Background(), coGVK, clusterOperator("seen"), timeline.Event{Time: time.Now(), Actor: "unknown",
			Verb: timeline.VerbUpdateStatus, Object: timeline.ObjectRef{Kind: "ClusterOperator", Group: coGVK.Group, Name: "seen"}},
			func(_ context.Context, _ client.Object, e *timeline.Event) { e.Actor, e.Role = "outsider", "operator" })
	}()
	until := start.Add(400 * time.Millisecond)
	if err := s.Run(context.Background(), until); err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(until) {
		t.Errorf("Run returned before its end")
	}
	if ticks.count["tick"] != 3 || ticks.count["seen"] != 1 {
		t.Errorf("reconciles: %v, want tick 3 times and seen once", ticks.count)
	}
	// The requeues were waited for: each tick at least 50ms after the last.
	var last time.Duration = -1
	for _, c := range ticks.calls {
		if c.Req != "tick" {
			continue
		}
		if last >= 0 && c.At-last < 50*time.Millisecond {
			t.Errorf("ticks %s apart, want 50ms or more", c.At-last)
		}
		last = c.At
	}
	if evs := tl.Events(); len(evs) == 0 || evs[len(evs)-1].Actor != "outsider" || evs[len(evs)-1].Role != "operator" {
		t.Errorf("the observed write is not on the timeline, put down to its writer: %+v", evs)
	}
}

// A reconciler that panics is retried with backoff, as controller-runtime
// does, and does not take the process down.
func TestPanicIsRecovered(t *testing.T) {
	s, _, _ := newScheduler()
	calls := 0
	mustStart(t, s, Actor{Name: "panicky", Initial: []reconcile.Request{req("x")},
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			calls++
			if calls < 3 {
				panic("boom")
			}
			return reconcile.Result{}, nil
		})})
	if err := s.Run(context.Background(), at(time.Second)); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("%d calls, want 3 (two panics retried)", calls)
	}
}

// A real-time run files the namespaced objects of the namespaces it
// created, and not another run's, whose names inside may be the same.
func TestObserveKeepsToOwnNamespaces(t *testing.T) {
	s, _, tl := newScheduler()
	s.Prefix = "r02-"
	s.ownNamespace("etcd")
	s.FixNames(schema.GroupKind{Kind: "ConfigMap"})
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	for _, ns := range []string{"r01-etcd", "r02-etcd", "default"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "etcd-admin", ResourceVersion: ns}}
		s.Observe(context.Background(), cmGVK, cm, timeline.Event{Time: time.Now(), Actor: "operator/etcd", Verb: timeline.VerbCreate,
			Object: timeline.ObjectRef{Kind: "ConfigMap"}}, nil)
	}
	evs := tl.Events()
	if len(evs) != 1 || evs[0].Object.Namespace != "etcd" || evs[0].Object.Name != "etcd-admin" {
		t.Errorf("filed %+v, want only the run's own etcd/etcd-admin", evs)
	}
}
