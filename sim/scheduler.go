package sim

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// Watch says which writes wake an actor: every object of a kind, or one name.
type Watch struct {
	// GVK is the watched kind.
	GVK schema.GroupVersionKind
	// Name, if set, is the one object of the kind watched (else every one).
	Name string
	// Map, if set, turns a watched write into the requests to reconcile, as
	// controller-runtime's handler.EnqueueRequestsFromMapFunc does, for an
	// actor that reconciles one object from others (a status aggregated
	// from its parts). It is given a copy of the object as the write left
	// it (as it was, for a delete) and the run's context, and must decide
	// from them and from reads alone. Nil asks for the written object's own
	// request.
	Map handler.MapFunc
}

// Actor is a controller or simulated process the scheduler drives. Its
// reconciler is any controller-runtime Reconciler; it must take time from the
// scheduler's clock and talk to the API server through a Client from
// Scheduler.Client, so that its writes are recorded and wake the watchers.
type Actor struct {
	// Name names the actor on the timeline and in faults.
	Name string
	// Role is the role the actor plays in its mechanism.
	Role string
	// Reconciler is what the scheduler calls with the actor's requests.
	Reconciler reconcile.Reconciler
	// Watches are the writes that wake the actor.
	Watches []Watch
	// Initial requests are reconciled when the actor starts or reconnects,
	// as an informer's first list would.
	Initial []reconcile.Request
	// ReadsOthers says that a reconcile reads objects other than its
	// request's own (a Watch with Map says so too): a batch holding any of
	// the actor's work then runs one object at a time (see runBatch).
	ReadsOthers bool
}

type actorState struct {
	Actor
	partitioned bool
	failures    map[reconcile.Request]int
}

// readsOthers tells whether the actor's reconciles read across objects.
func (a *Actor) readsOthers() bool {
	return a.ReadsOthers || slices.ContainsFunc(a.Watches, func(w Watch) bool { return w.Map != nil })
}

// maxBatchesPerInstant bounds the work at one virtual instant: actors that
// keep waking each other without time passing are a livelock, not a run.
const maxBatchesPerInstant = 10000

// Scheduler drives actors in virtual time. It is safe for the actors it runs
// to call its methods; Run itself must not be called concurrently.
type Scheduler struct {
	clock runClock
	// realtime runs on the wall clock (realtime.go): deadlines are waited
	// for, and wake interrupts the wait when Observe brings work.
	realtime bool
	wake     chan struct{}
	// own holds, in real time, the resource versions its actors' writes
	// left, and observed the writes seen while a batch ran, filed once it
	// is over and its own writes are known (under mu).
	own      map[string]bool
	observed []observation
	timeline *timeline.Timeline
	store    *store
	meter    meter
	// Prefix is prepended to object names in the API server to keep runs
	// that share one apart (prefix.go); nothing else sees it.
	Prefix string
	// fixed are names the seed fixes, never prefixed; namespaces are the
	// ones the run created (both under mu).
	fixed      map[schema.GroupKind]map[string]bool
	namespaces map[string]bool
	// Workers bounds how many objects are worked on at once in a batch.
	Workers int
	// OnAdvance, if set, is called with the new time whenever the clock
	// jumps (for progress displays; it must not call the scheduler).
	OnAdvance func(time.Time)

	mu     sync.Mutex
	actors map[string]*actorState
	// started maps every actor started so far to its role, and faults
	// are the API faults in force (faults.go); views are the view
	// perturbations in force, crashes the crashes armed, and dead the
	// actors a crash killed until they start again (perturb.go).
	started map[string]string
	faults  []*Fault
	views   []*Perturbed
	crashes []*Crash
	dead    map[string]bool
	queue   itemHeap
	pending map[pendingKey]*item
	seq     int64
	fields  map[schema.GroupVersionKind][]fieldPath

	// inBatch is set while a batch runs, and strays counts the events
	// recorded meanwhile without a batch context (see record).
	inBatch atomic.Bool
	strays  atomic.Int64

	// epoch is the clock's first instant; faulted is a subject's fault
	// (stamps.go) found outside a batch (under mu).
	epoch   time.Time
	faulted error
}

// NewScheduler returns a scheduler on clock that records into tl.
func NewScheduler(clock *testingclock.FakeClock, tl *timeline.Timeline) *Scheduler {
	return build(clock, tl)
}

func build(clock runClock, tl *timeline.Timeline) *Scheduler {
	return &Scheduler{
		clock:    clock,
		epoch:    clock.Now(),
		wake:     make(chan struct{}, 1),
		timeline: tl,
		store:    newStore(),
		Workers:  4,
		actors:   map[string]*actorState{},
		started:  map[string]string{},
		dead:     map[string]bool{},
		pending:  map[pendingKey]*item{},
		fields:   map[schema.GroupVersionKind][]fieldPath{},
	}
}

// Clock is the run's virtual clock, for actors to take time from.
func (s *Scheduler) Clock() clock.PassiveClock { return s.clock }

// Now is the current virtual time.
func (s *Scheduler) Now() time.Time { return s.clock.Now() }

// At queues fn to run alone at virtual time t (scenario steps); in real
// time a Run asleep looks again, as fn may be due sooner than what it
// waits for.
func (s *Scheduler) At(t time.Time, fn func(context.Context) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	heap.Push(&s.queue, &item{at: t, seq: s.seq, actor: timeline.RoleScenario, fn: fn})
	s.poke()
}

// Enqueue asks for a reconcile of req by actor at t (or now, if t is past).
func (s *Scheduler) Enqueue(actor string, req reconcile.Request, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enqueueLocked(actor, req, t)
	s.poke() // in real time, a Run asleep looks again
}

// enqueueLocked keeps one pending item per actor and request, at the
// earliest time asked for, as controller-runtime's work queue does.
func (s *Scheduler) enqueueLocked(actor string, req reconcile.Request, t time.Time) {
	if now := s.clock.Now(); t.Before(now) {
		t = now
	}
	k := pendingKey{actor, req}
	if old, ok := s.pending[k]; ok {
		if !old.at.After(t) {
			return
		}
		old.cancelled = true
	}
	s.seq++
	it := &item{at: t, seq: s.seq, actor: actor, req: req}
	s.pending[k] = it
	heap.Push(&s.queue, it)
}

// Run works through the queue until nothing is due before until, jumping the
// clock from deadline to deadline, and leaves the clock at until.
func (s *Scheduler) Run(ctx context.Context, until time.Time) error {
	var instant time.Time
	batches := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.takeFault(); err != nil {
			return err
		}
		batch, wait := s.nextBatch(until)
		if batch == nil && s.realtime && s.clock.Now().Before(until) {
			if err := s.sleep(ctx, wait); err != nil {
				return err
			}
			continue
		}
		if batch == nil {
			if s.clock.Now().Before(until) {
				s.clock.SetTime(until)
			}
			return nil
		}
		if now := s.clock.Now(); now.Equal(instant) {
			batches++
			if batches > maxBatchesPerInstant {
				return fmt.Errorf("no quiescence at %s: actors keep waking each other", now.Format(time.RFC3339Nano))
			}
		} else {
			instant, batches = now, 0
		}
		if err := s.runBatch(ctx, batch); err != nil {
			return err
		}
	}
}

// nextBatch moves the clock to the earliest due item and takes the work due
// then: one scenario step alone, or every reconcile up to the next step. In
// real time it does not move the clock: with nothing due yet it returns no
// batch and when the next item is due (until, if none).
func (s *Scheduler) nextBatch(until time.Time) ([]*item, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.queue.peek()
	if first == nil || first.at.After(until) {
		return nil, until
	}
	if first.at.After(s.clock.Now()) {
		if s.realtime {
			return nil, first.at
		}
		s.clock.SetTime(first.at)
		if s.OnAdvance != nil {
			s.OnAdvance(first.at)
		}
	}
	now := s.clock.Now()
	var batch []*item
	for it := s.queue.peek(); it != nil && !it.at.After(now); it = s.queue.peek() {
		if it.fn != nil && len(batch) > 0 {
			break
		}
		heap.Pop(&s.queue)
		batch = append(batch, it)
		if it.fn != nil {
			break
		}
		delete(s.pending, pendingKey{it.actor, it.req})
	}
	return batch, now
}

// runBatch runs a batch, objects in parallel, and appends its events in
// object order so the timeline does not depend on goroutine scheduling.
//
// An actor that reads across objects would see, in parallel, whichever
// writes of the other objects happened to come first; a batch holding its
// work therefore runs its objects one at a time, in the same object order.
// Its events land exactly where parallel work would have put them, so
// batches without such an actor, and their timelines, are as before.
func (s *Scheduler) runBatch(ctx context.Context, batch []*item) error {
	groups := map[types.NamespacedName][]*item{}
	var keys []types.NamespacedName
	for _, it := range batch {
		if _, ok := groups[it.req.NamespacedName]; !ok {
			keys = append(keys, it.req.NamespacedName)
		}
		groups[it.req.NamespacedName] = append(groups[it.req.NamespacedName], it)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	workers := max(1, s.Workers)
	if s.readsOthers(batch) {
		workers = 1
	}
	sinks := make([]*sink, len(keys))
	errs := make([]error, len(keys))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	s.inBatch.Store(true)
	for i, k := range keys {
		sinks[i] = &sink{}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			gctx := withSink(ctx, sinks[i])
			for _, it := range groups[k] {
				if err := s.runItem(gctx, it); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	s.inBatch.Store(false)
	s.fileObserved(ctx)
	if n := s.strays.Swap(0); n > 0 {
		errs = append(errs, fmt.Errorf("%d event(s) recorded at %s without the context the scheduler passed to the work being run, "+
			"so their place on the timeline would depend on goroutine scheduling: pass that context to Record and to client calls",
			n, s.clock.Now().Format(time.RFC3339Nano)))
	}
	for _, sk := range sinks {
		s.timeline.Append(sk.events...)
		s.notify(ctx, sk.writes)
	}
	if i := slices.IndexFunc(sinks, func(sk *sink) bool { return sk.fault != nil }); i >= 0 {
		errs = append(errs, sinks[i].fault)
	}
	return errors.Join(errs...)
}

// readsOthers tells whether any reconcile in batch is by an actor that
// reads across objects.
func (s *Scheduler) readsOthers(batch []*item) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range batch {
		if st, ok := s.actors[it.actor]; ok && it.fn == nil && st.readsOthers() {
			return true
		}
	}
	return false
}

// runItem runs one item. A scenario step's error ends the run; a reconcile
// error is the actor's business and is retried with backoff, as
// controller-runtime does.
func (s *Scheduler) runItem(ctx context.Context, it *item) error {
	if it.fn != nil {
		return it.fn(ctx)
	}
	s.mu.Lock()
	st, ok := s.actors[it.actor]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	res, err := reconcileRecovering(ctx, st.Reconciler, it.req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.actors[it.actor] != st {
		return nil
	}
	now := s.clock.Now()
	switch {
	case errors.Is(err, reconcile.TerminalError(nil)):
		// Not retried, and, as in controller-runtime, not forgiven either.
	//lint:ignore SA1019 Requeue is deprecated, but controller-runtime still honours it and so must the simulator.
	case err != nil || res.Requeue:
		st.failures[it.req]++
		s.enqueueLocked(it.actor, it.req, now.Add(backoff(st.failures[it.req])))
	case res.RequeueAfter > 0:
		delete(st.failures, it.req)
		s.enqueueLocked(it.actor, it.req, now.Add(res.RequeueAfter))
	default:
		delete(st.failures, it.req)
	}
	return nil
}

// backoff is controller-runtime's default per-item backoff: 5ms doubling,
// capped at 1000s.
func backoff(failures int) time.Duration {
	d := 5 * time.Millisecond
	for i := 1; i < failures && d < 1000*time.Second; i++ {
		d *= 2
	}
	return min(d, 1000*time.Second)
}

// notify wakes every connected actor that watches a written object, writes
// in the order they were made, actors in name order, each actor's requests
// for one write sorted and once each, so that the queue, and the order in
// which work due at one instant runs, is the same in every run. Several
// writes asking one actor for one request leave one pending item, as
// controller-runtime's work queue does. Map functions are called without
// the scheduler's lock, so that they may read through a Client.
func (s *Scheduler) notify(ctx context.Context, writes []written) {
	if len(writes) == 0 {
		return
	}
	s.mu.Lock()
	var watchers []*actorState
	for _, st := range s.actors {
		if !st.partitioned {
			watchers = append(watchers, st)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(watchers, func(a, b *actorState) int { return strings.Compare(a.Name, b.Name) })
	for _, w := range writes {
		for _, st := range watchers {
			if s.held(st, w) {
				continue // a perturbation tells it later, or never (perturb.go)
			}
			s.tell(ctx, st, w)
		}
	}
}

// tell wakes a watcher for the requests one write asks of it.
func (s *Scheduler) tell(ctx context.Context, st *actorState, w written) {
	reqs := st.requests(ctx, w)
	if len(reqs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A Map may have killed or cut off the actor (or one before it).
	if s.actors[st.Name] == st && !st.partitioned {
		for _, r := range reqs {
			s.enqueueLocked(st.Name, r, s.clock.Now())
		}
	}
}

// requests lists what one write asks the actor to reconcile, sorted, each
// once.
func (a *Actor) requests(ctx context.Context, w written) []reconcile.Request {
	var out []reconcile.Request
	for _, wt := range a.Watches {
		if wt.GVK != w.gvk || (wt.Name != "" && wt.Name != w.key.Name) {
			continue
		}
		if wt.Map == nil {
			out = append(out, reconcile.Request{NamespacedName: w.key})
			continue
		}
		out = append(out, wt.Map(ctx, w.obj.DeepCopyObject().(client.Object))...)
	}
	slices.SortFunc(out, compareRequests)
	return slices.Compact(out)
}

// compareRequests orders requests by namespace, then name.
func compareRequests(x, y reconcile.Request) int {
	return cmp.Or(strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
}

// Record files a non-API event (an expectation, a change to a node's files,
// a probe's answer) at the current virtual time. Inside Run, ctx must be the
// context the scheduler passed to the reconcile or step the event belongs
// to: the event then takes its place among that work's events, in object
// order, whatever the goroutines did. An event recorded while a batch runs
// without that context fails the run, rather than land where the
// goroutines happened to put it.
func (s *Scheduler) Record(ctx context.Context, e timeline.Event) {
	e.Time = s.clock.Now()
	s.record(ctx, e)
}

// reconcileRecovering calls r, turning a panic into an error, as
// controller-runtime does by default (RecoverPanic): a subject that panics
// is retried with backoff, and the test binary of a team running its
// reconciler in opcert's simulator does not crash.
func reconcileRecovering(ctx context.Context, r reconcile.Reconciler, req reconcile.Request) (res reconcile.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = reconcile.Result{}, fmt.Errorf("panic: %v [recovered]", p)
		}
	}()
	return r.Reconcile(ctx, req)
}
