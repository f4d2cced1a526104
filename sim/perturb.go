package sim

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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
	// Role is whose view is perturbed; Actor, if set, the one actor of it.
	Role, Actor string
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
	// told are the actors given a fault event; held the requests each
	// lost (both under the scheduler's mu).
	told map[string]string
	held map[string][]reconcile.Request
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
	p := &Perturbed{View: v, told: map[string]string{}, held: map[string][]reconcile.Request{}}
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
// wake-ups were lost is woken once for each request it lost.
func (s *Scheduler) Unperturb(ctx context.Context, p *Perturbed) error {
	s.mu.Lock()
	i := slices.Index(s.views, p)
	if i < 0 {
		s.mu.Unlock()
		return errors.New("the perturbation is not in force")
	}
	s.views = slices.Delete(s.views, i, i+1)
	for name, reqs := range p.held {
		if _, running := s.actors[name]; !running {
			continue // dead since: a start lists anew
		}
		slices.SortFunc(reqs, compareRequests)
		for _, r := range slices.Compact(reqs) {
			s.enqueueLocked(name, r, s.clock.Now())
		}
	}
	told := p.told
	p.told, p.held = nil, nil
	s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(told)) {
		s.processEvent(ctx, name, told[name], timeline.VerbClear, p.String())
	}
	return nil
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

// wakeLocked queues the requests a write asks of a watcher, as its view
// lets it see them (under mu).
func (s *Scheduler) wakeLocked(st *actorState, reqs []reconcile.Request) {
	now := s.clock.Now()
	p := s.viewOf(st.Role, st.Name)
	switch {
	case p == nil:
		for _, r := range reqs {
			s.enqueueLocked(st.Name, r, now)
		}
	case p.Lose:
		p.held[st.Name] = append(p.held[st.Name], reqs...)
	default:
		// Told later, not asked now for later: a wake-up due later would
		// merge with one due earlier, which a work queue does only while
		// the earlier is still waiting.
		name, reqs := st.Name, slices.Clone(reqs)
		s.seq++
		heap.Push(&s.queue, &item{at: now.Add(p.late()), seq: s.seq, actor: timeline.RoleScenario, fn: func(context.Context) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.actors[name] == st && !st.partitioned {
				for _, r := range reqs {
					s.enqueueLocked(name, r, s.clock.Now())
				}
			}
			return nil
		}})
	}
}

// Crash arms a crash: the actor of Role (or Actor alone) that makes the
// After-th successful write from now is killed right after it, and Then
// is called RestartAfter later to start it again.
type Crash struct {
	// Role and Actor are whose writes count.
	Role, Actor string
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

// crashed tells whether a crash killed the client's actor and nothing has
// started it since.
func (c *Client) crashed() error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.dead[c.actor] {
		return fmt.Errorf("%s: %w", c.actor, ErrCrashed)
	}
	return nil
}
