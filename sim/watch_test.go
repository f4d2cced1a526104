package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// A Map watch enqueues what it returns, sorted and once each, instead of
// the written object; a watch without Map keeps enqueueing the object. The
// Map sees a copy of the object as written, or as it was before a delete.
func TestWatchMapEnqueuesTheMappedRequestsSortedOnce(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t, clusterOperator("alpha"), clusterOperator("beta"))
	scenario := s.Client(api, timeline.RoleScenario, timeline.RoleScenario)

	var mu sync.Mutex
	var seen []string
	toSummaries := func(_ context.Context, obj client.Object) []reconcile.Request {
		co := obj.(*configv1.ClusterOperator)
		msg := "-"
		if c := findCondition(co, "Available"); c != nil {
			msg = c.Message
		}
		mu.Lock()
		seen = append(seen, co.Name+":"+msg)
		mu.Unlock()
		co.Status.Conditions = nil // a copy: the store must not see this
		return []reconcile.Request{req("summary-b"), req("summary-a"), req("summary-b")}
	}
	agg := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "aggregator", Reconciler: agg, Watches: []Watch{
		{GVK: coGVK, Name: "alpha", Map: toSummaries},
		{GVK: coGVK, Name: "alpha"}, // and alpha itself
		{GVK: coGVK, Map: func(context.Context, client.Object) []reconcile.Request { return nil }},
	}})

	s.At(at(time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "alpha", "Available", configv1.ConditionTrue, "up")
	})
	s.At(at(2*time.Second), func(ctx context.Context) error {
		// Two writes in one step ask for the same requests: one reconcile each.
		if err := writeStatus(ctx, s, scenario, "alpha", "Available", configv1.ConditionFalse, "down"); err != nil {
			return err
		}
		return writeStatus(ctx, s, scenario, "alpha", "Available", configv1.ConditionTrue, "up again")
	})
	s.At(at(3*time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "beta", "Available", configv1.ConditionTrue, "beta is not watched by name")
	})
	s.At(at(4*time.Second), func(ctx context.Context) error {
		return scenario.Delete(ctx, clusterOperator("alpha"))
	})
	mustRun(t, s, at(time.Minute))

	var want []call
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		want = append(want, call{d, "alpha"}, call{d, "summary-a"}, call{d, "summary-b"})
	}
	checkCalls(t, "aggregator", agg.Calls(), want...)
	if want := []string{"alpha:up", "alpha:down", "alpha:up again", "alpha:up again"}; !slices.Equal(seen, want) {
		t.Errorf("Map saw %q, want %q (the delete shows the object as it was)", seen, want)
	}
	var co configv1.ClusterOperator
	if err := scenario.Get(context.Background(), types.NamespacedName{Name: "beta"}, &co); err != nil || len(co.Status.Conditions) != 1 {
		t.Errorf("beta after the run: %v, %d conditions", err, len(co.Status.Conditions))
	}
}

// A cut-off actor's Map is not asked: it hears of no writes.
func TestWatchMapIsNotCalledForACutOffActor(t *testing.T) {
	s, _, _ := newScheduler()
	scenario := s.Client(newAPI(t, clusterOperator("alpha")), timeline.RoleScenario, timeline.RoleScenario)
	var calls atomic.Int32
	mustStart(t, s, Actor{Name: "agg", Reconciler: newRecorder(s, nil), Watches: []Watch{{GVK: coGVK,
		Map: func(context.Context, client.Object) []reconcile.Request {
			calls.Add(1)
			return []reconcile.Request{req("sum")}
		}}}})
	s.At(at(time.Second), func(ctx context.Context) error { return s.Partition(ctx, "agg", true) })
	s.At(at(2*time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "alpha", "Available", configv1.ConditionTrue, "up")
	})
	mustRun(t, s, at(time.Minute))
	if n := calls.Load(); n != 0 {
		t.Errorf("Map called %d times for a cut-off actor", n)
	}
}

// concurrency measures how many reconciles run at once.
type concurrency struct {
	now, most atomic.Int32
}

func (c *concurrency) enter() {
	n := c.now.Add(1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
}

func (c *concurrency) exit() { c.now.Add(-1) }

// Work for different objects runs in parallel, except in a batch holding
// work of an actor that reads across objects: that one runs one object at a
// time, so what such an actor reads does not depend on the goroutines.
func TestBatchWithAnActorThatReadsOthersRunsOneObjectAtATime(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reader   Actor
		parallel bool
	}{
		{"independent actors", Actor{}, true},
		{"ReadsOthers", Actor{ReadsOthers: true}, false},
		{"a Map watch", Actor{Watches: []Watch{{GVK: coGVK, Map: func(context.Context, client.Object) []reconcile.Request { return nil }}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newScheduler()
			s.Workers = 4
			var c concurrency
			// Each of the two first reconciles waits for the other to have
			// started, when they may: parallel work meets, serial work
			// must not wait.
			var started sync.WaitGroup
			started.Add(2)
			r := newRecorder(s, func(_ context.Context, rq reconcile.Request, _ int) (reconcile.Result, error) {
				c.enter()
				defer c.exit()
				if tc.parallel && (rq.Name == "a" || rq.Name == "b") {
					started.Done()
					started.Wait()
				}
				return reconcile.Result{}, nil
			})
			var initial []reconcile.Request
			for i := range 12 {
				initial = append(initial, req(string(rune('a'+i))))
			}
			mustStart(t, s, Actor{Name: "worker", Reconciler: r, Initial: initial})
			reader := tc.reader
			reader.Name, reader.Reconciler, reader.Initial = "reader", newRecorder(s, nil), []reconcile.Request{req("z")}
			mustStart(t, s, reader)
			mustRun(t, s, at(time.Second))
			if most := c.most.Load(); (most > 1) != tc.parallel {
				t.Errorf("at most %d reconciles at once, want parallel=%v", most, tc.parallel)
			}
			got := r.Calls()
			if len(got) != 12 || !tc.parallel && !slices.IsSortedFunc(got, func(x, y call) int { return strings.Compare(x.Req, y.Req) }) {
				t.Errorf("calls %v: want 12, in object order when serial", got)
			}
		})
	}
}

// An aggregator that reads every operator when any of them moves (a Map
// watch to one request) and records what it read: the busy scenario with it
// gives one timeline whatever the number of workers.
func TestAnActorThatReadsAcrossObjectsKeepsTheTimelineDeterministic(t *testing.T) {
	first := busyScenario(t, 4, true)
	counts := map[string]int{}
	for _, e := range first {
		if e.Actor == "aggregator" {
			counts[e.Verb]++
		}
	}
	if counts[timeline.VerbExpect] < 100 {
		t.Fatalf("the aggregator recorded %v: too quiet for the comparison to mean much", counts)
	}
	for _, workers := range []int{1, 16} {
		compareTimelines(t, fmt.Sprintf("with %d workers", workers), first, busyScenario(t, workers, true))
	}
}
