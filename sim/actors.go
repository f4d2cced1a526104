package sim

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// The life of simulated processes: started, killed, cut off, reconnected
// (and their calls failed for a while: faults.go). Each change is an event
// on the timeline, so rules can tell an operator that did not answer from
// one that could not.

// Start registers an actor and queues its initial requests now. Starting a
// running actor is an error.
func (s *Scheduler) Start(ctx context.Context, a Actor) error {
	s.mu.Lock()
	if _, ok := s.actors[a.Name]; ok {
		s.mu.Unlock()
		return fmt.Errorf("actor %q is already running", a.Name)
	}
	st := &actorState{Actor: a, failures: map[reconcile.Request]int{}}
	s.actors[a.Name], s.started[a.Name] = st, a.Role
	delete(s.dead, a.Name)
	for _, r := range a.Initial {
		s.enqueueLocked(a.Name, r, s.clock.Now())
	}
	windows := s.tellStarted(st)
	s.mu.Unlock()
	s.process(ctx, a.Name, a.Role, timeline.VerbStart)
	for _, detail := range windows {
		s.processEvent(ctx, a.Name, a.Role, timeline.VerbFault, detail)
	}
	return nil
}

// Kill stops an actor at once: its queued work is dropped and it sees no
// further writes, as when a process dies.
func (s *Scheduler) Kill(ctx context.Context, name string) error {
	s.mu.Lock()
	st, ok := s.actors[name]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("actor %q is not running", name)
	}
	s.dropLocked(name)
	s.mu.Unlock()
	s.process(ctx, name, st.Role, timeline.VerbKill)
	return nil
}

// dropLocked forgets a running actor and its queued work (under mu).
func (s *Scheduler) dropLocked(name string) {
	delete(s.actors, name)
	for k, it := range s.pending {
		if k.actor == name {
			it.cancelled = true
			delete(s.pending, k)
		}
	}
}

// Partition cuts an actor off from the API server (cut) or reconnects it.
// A cut-off actor keeps its timers but every call it makes fails and it is
// told of no writes; on reconnect its initial requests are queued again.
func (s *Scheduler) Partition(ctx context.Context, name string, cut bool) error {
	s.mu.Lock()
	st, ok := s.actors[name]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("actor %q is not running", name)
	}
	if st.partitioned == cut {
		s.mu.Unlock()
		return nil
	}
	st.partitioned = cut
	if !cut {
		for _, r := range st.Initial {
			s.enqueueLocked(name, r, s.clock.Now())
		}
	}
	s.mu.Unlock()
	verb := timeline.VerbHang
	if !cut {
		verb = timeline.VerbReconnect
	}
	s.process(ctx, name, st.Role, verb)
	return nil
}

// Running tells whether an actor is registered (alive, maybe cut off).
func (s *Scheduler) Running(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.actors[name]
	return ok
}

func (s *Scheduler) process(ctx context.Context, name, role, verb string) {
	s.processEvent(ctx, name, role, verb, "")
}

// processEvent records a process event of an actor, with detail.
func (s *Scheduler) processEvent(ctx context.Context, name, role, verb, detail string) {
	s.record(ctx, timeline.Event{
		Time: s.clock.Now(), Actor: name, Role: role, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: name}, Detail: detail,
	})
}
