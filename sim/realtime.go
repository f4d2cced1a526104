package sim

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// Real time, for the tiers where opcert's subjects are real processes or a
// real cluster: the same scheduler, actors and recording clients, but the
// clock is the wall clock. Run waits for each deadline instead of jumping
// to it, and learns of the writes it did not make (processes it started,
// anyone on a cluster) from whoever watches the API server, through
// Observe, which files them and wakes the actors that watch them. Nothing
// here is deterministic, and nothing is meant to be: the run is judged with
// the rules' tolerance.

// runClock is the run's clock: a fake one the scheduler moves, or the wall
// clock, which SetTime cannot move.
type runClock interface {
	clock.PassiveClock
	SetTime(time.Time)
}

var _ runClock = (*testingclock.FakeClock)(nil)

type wallClock struct{ clock.RealClock }

func (wallClock) SetTime(time.Time) {}

// NewRealtime returns a scheduler on the wall clock that records into tl.
func NewRealtime(tl *timeline.Timeline) *Scheduler {
	s := build(wallClock{}, tl)
	s.realtime = true
	return s
}

// Realtime tells whether the scheduler runs on the wall clock.
func (s *Scheduler) Realtime() bool { return s.realtime }

// sleep waits until t, until Observe or Enqueue brings work, or until ctx
// ends.
func (s *Scheduler) sleep(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-s.wake:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// poke interrupts a sleeping Run; a poke while it works is kept for its
// next sleep.
func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Observe files a write the scheduler did not make, as seen on the API
// server (obj as the write left it, as it was for a delete; e the event to
// file, its object named as the server names it), and wakes the actors
// that watch the object. An object of another run (another prefix) is
// ignored. It may be called from any goroutine, while Run runs.
//
// A write seen while a batch runs waits for the batch to end: the watch
// can bring one of the batch's own writes before the write's call has
// returned its resource version, and it must not be filed twice. who, if
// not nil, names the writer of a write that is not the run's own (Actor,
// Role), once that is known and before it is filed: it may ask the API
// server's audit, and wait a moment for it.
func (s *Scheduler) Observe(ctx context.Context, gvk schema.GroupVersionKind, obj client.Object, e timeline.Event, who func(context.Context, client.Object, *timeline.Event)) {
	s.observe(ctx, observation{gvk, obj.DeepCopyObject().(client.Object), e, who})
}

// ObserveEvent files a non-API event that whoever watches the API server
// saw (a recording gap: the watch lost sight of the server, and caught up),
// at its own time, in its place among the observed writes.
func (s *Scheduler) ObserveEvent(ctx context.Context, e timeline.Event) {
	s.observe(ctx, observation{e: e})
}

func (s *Scheduler) observe(ctx context.Context, o observation) {
	s.mu.Lock()
	if s.inBatch.Load() {
		s.observed = append(s.observed, o)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.file(ctx, o)
}

// observation is a write seen on the API server, not yet filed.
type observation struct {
	gvk schema.GroupVersionKind
	obj client.Object
	e   timeline.Event
	who func(context.Context, client.Object, *timeline.Event)
}

// fileObserved files the writes seen while the last batch ran.
func (s *Scheduler) fileObserved(ctx context.Context) {
	s.mu.Lock()
	pending := s.observed
	s.observed = nil
	s.mu.Unlock()
	for _, o := range pending {
		s.file(ctx, o)
	}
}

// file files one observed write unless it is the run's own.
func (s *Scheduler) file(ctx context.Context, o observation) {
	gvk, obj, e := o.gvk, o.obj, o.e
	if obj == nil {
		s.timeline.Append(e)
		return
	}
	if s.isMine(obj.GetResourceVersion()) {
		return // a write of the scheduler's own actors, filed when made
	}
	if !s.toLocal(gvk.GroupKind(), obj) {
		return
	}
	if ns := obj.GetNamespace(); ns != "" && !s.inOwnNamespace(ns) {
		// A namespaced object a real-time run observes is its own only in
		// a namespace it created: another run's namespace carries another
		// prefix, and the names inside it may be fixed, as the run's are.
		return
	}
	if o.who != nil {
		o.who(ctx, obj, &e)
	}
	k := storeKey{gvk, client.ObjectKeyFromObject(obj)}
	if e.Verb == timeline.VerbDelete {
		s.store.forget(k)
	} else {
		s.store.put(k, obj)
	}
	e.Object.Namespace, e.Object.Name = k.key.Namespace, k.key.Name
	s.timeline.Append(e)
	s.notify(ctx, []written{{k, obj}})
	s.poke()
}

// mine remembers, in real time, the resource version a write of the
// scheduler's own actors left, so that Observe does not file it twice.
func (s *Scheduler) mine(rv string) {
	if !s.realtime || rv == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == nil {
		s.own = map[string]bool{}
	}
	s.own[rv] = true
}

func (s *Scheduler) isMine(rv string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rv != "" && s.own[rv]
}

// Local is the key of obj as the scenario knows it, and whether obj is
// this run's.
func (s *Scheduler) Local(gvk schema.GroupVersionKind, obj client.Object) (types.NamespacedName, bool) {
	c := obj.DeepCopyObject().(client.Object)
	ours := s.toLocal(gvk.GroupKind(), c)
	return client.ObjectKeyFromObject(c), ours
}

// ServerName is the name the API server holds for an object the scenario
// names name (the run's prefix applied where it applies): what a process
// opcert starts must be told.
func (s *Scheduler) ServerName(gk schema.GroupKind, name string) string {
	return s.serverKey(gk, types.NamespacedName{Name: name}).Name
}
