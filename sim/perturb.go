package sim

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Perturbations change what a role's actors see, as the operator-testing
// literature perturbs controllers (restarts in the middle of a reconcile,
// missed intermediate states, a lagging cache): deterministically, in
// virtual time. Each is something a real cluster does to a faithful
// operator, so a faithful one survives it:
//
//   - a crash (CrashAfter): the actor that makes a role's n-th write is
//     killed right after it (its reconcile's later calls fail, as a
//     process's would after it died) and restarted, a new instance with
//     no memory, as a pod is;
//   - lost notifications (View.Lose): the watch wake-ups of the window
//     never come; at its end the actor is woken once for each object that
//     changed, as an informer's relist after a broken watch does, so the
//     states in between are never seen;
//   - late notifications (View.Delay): each wake-up comes that much later;
//   - stale reads (View.Lag): the actor's reads are answered as the
//     objects were that long ago and its wake-ups come that much later, as
//     an informer's cache behind the API server answers and notifies.
//
// A view window is a fault span on the timeline (fault and clear events,
// Detail "perturbation: ..."), so that the rules owe the actor nothing
// while it could not see; a crash is the actor's kill and start.

// View is a window in which what a role's actors see is perturbed: exactly
// one of Lose, Delay and Lag.
type View struct {
	// Role is whose view is perturbed.
	Role string
	// Actor, if set, is the one actor of Role perturbed.
	Actor string
	// Lose loses the wake-ups, with a relist at the end.
	Lose bool
	// Delay holds each wake-up back this long.
	Delay time.Duration
	// Lag answers reads as of this long ago, and holds wake-ups back as long.
	Lag time.Duration
}

func (v View) check() error {
	n := 0
	for _, set := range []bool{v.Lose, v.Delay != 0, v.Lag != 0} {
		if set {
			n++
		}
	}
	switch {
	case v.Role == "":
		return errors.New("a perturbation needs the role whose view it changes")
	case n != 1:
		return errors.New("a view perturbation loses, delays or lags the view: exactly one")
	case v.Delay < 0 || v.Lag < 0:
		return errors.New("a perturbation's delay and lag are more than 0")
	}
	return nil
}

// String says what the window does, for the timeline's Detail.
func (v View) String() string {
	switch {
	case v.Lose:
		return timeline.PerturbationDetail + "notifications lost (a relist at the end)"
	case v.Delay > 0:
		return fmt.Sprintf("%snotifications %v late", timeline.PerturbationDetail, v.Delay)
	}
	return fmt.Sprintf("%sreads %v stale, notifications %v late", timeline.PerturbationDetail, v.Lag, v.Lag)
}

// late is how long the window holds a wake-up back.
func (v View) late() time.Duration { return max(v.Delay, v.Lag) }

// Perturbed is a view window in force, from Perturb until Unperturb.
type Perturbed struct {
	View
	// told are the actors given a fault event; held the writes each was
	// not told of (both under the scheduler's mu).
	told map[string]string
	held map[string][]written
}

func (p *Perturbed) reaches(role, actor string) bool {
	return role == p.Role && (p.Actor == "" || p.Actor == actor)
}

// Perturb starts a view window now. A window on one actor needs an actor
// of that name and role started before; a window with a lag keeps the
// objects' history from now on (KeepHistory), so it answers as of the
// window's start at the earliest.
func (s *Scheduler) Perturb(ctx context.Context, v View) (*Perturbed, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if v.Actor != "" && s.started[v.Actor] != v.Role {
		s.mu.Unlock()
		return nil, fmt.Errorf("no actor %q of role %s has started; actors of the role so far: %s", v.Actor, v.Role, s.startedOf(v.Role))
	}
	p := &Perturbed{View: v, told: map[string]string{}, held: map[string][]written{}}
	s.views = append(s.views, p)
	var reached []string
	for name, st := range s.actors {
		if p.reaches(st.Role, name) {
			reached = append(reached, name)
			p.told[name] = st.Role
		}
	}
	s.mu.Unlock()
	if v.Lag > 0 {
		s.store.keepHistory(s.clock.Now())
	}
	slices.Sort(reached)
	for _, name := range reached {
		s.processEvent(ctx, name, v.Role, timeline.VerbFault, v.String())
	}
	return p, nil
}

// Unperturb ends a view window: the actors see as before, and one whose
// notifications were lost is told once of each object they were about,
// as it is now (an informer's relist: the states in between are gone).
func (s *Scheduler) Unperturb(ctx context.Context, p *Perturbed) error {
	s.mu.Lock()
	i := slices.Index(s.views, p)
	if i < 0 {
		s.mu.Unlock()
		return errors.New("the perturbation is not in force")
	}
	s.views = slices.Delete(s.views, i, i+1)
	told, held := p.told, p.held
	p.told, p.held = nil, nil
	s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(held)) {
		s.relist(ctx, name, held[name])
	}
	for _, name := range slices.Sorted(maps.Keys(told)) {
		s.processEvent(ctx, name, told[name], timeline.VerbClear, p.String())
	}
	return nil
}

// relist tells a running actor once of each object of the writes it lost,
// in the order first written, as the object is now (as it was last, if it
// is gone).
func (s *Scheduler) relist(ctx context.Context, name string, lost []written) {
	s.mu.Lock()
	st, running := s.actors[name]
	s.mu.Unlock()
	if !running {
		return // dead since: its start lists anew
	}
	seen := map[storeKey]bool{}
	for _, w := range lost {
		if seen[w.storeKey] {
			continue
		}
		seen[w.storeKey] = true
		if now := s.store.peek(w.storeKey); now != nil {
			w.obj = now
		}
		s.tell(ctx, st, w)
	}
}

// viewOf is the window that perturbs what an actor of role sees, or nil
// (under mu).
func (s *Scheduler) viewOf(role, actor string) *Perturbed {
	for _, p := range s.views {
		if p.reaches(role, actor) {
			return p
		}
	}
	return nil
}

// lagOf is how stale the reads of an actor are now (0: fresh).
func (s *Scheduler) lagOf(role, actor string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.viewOf(role, actor); p != nil {
		return p.Lag
	}
	return 0
}

// held tells whether a view perturbation holds back the news of a write
// from a watcher: it keeps a lost one until the window's end, and tells a
// late one later. The watcher learns what the write asks of it (its Map
// runs) when it is told, as an informer's handlers run when its event is
// delivered.
func (s *Scheduler) held(st *actorState, w written) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.viewOf(st.Role, st.Name)
	switch {
	case p == nil:
		return false
	case p.Lose:
		p.held[st.Name] = append(p.held[st.Name], w)
		return true
	}
	s.seq++
	heap.Push(&s.queue, &item{at: s.clock.Now().Add(p.late()), seq: s.seq, actor: timeline.RoleScenario, fn: func(ctx context.Context) error {
		s.tell(ctx, st, w)
		return nil
	}})
	return true
}

// Crash arms a crash: the actor of Role (or Actor alone) that makes the
// After-th successful write from now is killed right after it, and Then
// is called RestartAfter later to start it again.
type Crash struct {
	// Role is whose writes count.
	Role string
	// Actor, if set, is the one actor of Role whose writes count.
	Actor string
	// After is the write, counted from 1, after which the writer dies.
	After int
	// RestartAfter is how long the writer stays dead.
	RestartAfter time.Duration
	// Then starts the actor again (a new instance), as a step at its time.
	Then func(ctx context.Context, actor string) error

	writes int // so far (under the scheduler's mu)
}

// CrashAfter arms c until it fires.
func (s *Scheduler) CrashAfter(c *Crash) error {
	switch {
	case c.Role == "":
		return errors.New("a crash needs the role whose writes it counts")
	case c.After < 1:
		return fmt.Errorf("a crash comes after a write counted from 1, not %d", c.After)
	case c.RestartAfter < 0:
		return errors.New("a crash's restart comes after 0 or more")
	case c.Then == nil:
		return errors.New("a crash needs what starts the actor again")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crashes = append(s.crashes, c)
	return nil
}

// wrote counts a successful write of an actor for the crashes armed, and
// kills it if one fires.
func (s *Scheduler) wrote(ctx context.Context, actor, role string) {
	s.mu.Lock()
	var fired *Crash
	for i, c := range s.crashes {
		if c.Role != role || (c.Actor != "" && c.Actor != actor) {
			continue
		}
		if c.writes++; c.writes == c.After {
			fired = c
			s.crashes = slices.Delete(s.crashes, i, i+1)
			break
		}
	}
	if fired == nil {
		s.mu.Unlock()
		return
	}
	st, running := s.actors[actor]
	if running {
		s.dropLocked(actor)
		s.dead[actor] = true
	}
	s.mu.Unlock()
	if !running {
		return // its Map or a step killed it already
	}
	s.processEvent(ctx, actor, st.Role, timeline.VerbKill, fmt.Sprintf("%scrash after write %d", timeline.PerturbationDetail, fired.After))
	s.At(s.clock.Now().Add(fired.RestartAfter), func(ctx context.Context) error {
		// What starts it again may read through its client first.
		s.mu.Lock()
		delete(s.dead, actor)
		s.mu.Unlock()
		return fired.Then(ctx, actor)
	})
}

// ErrCrashed is returned by the calls an actor's reconcile makes after a
// crash killed it in its middle.
var ErrCrashed = errors.New("the process died")
