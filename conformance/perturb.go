package conformance

import (
	"context"
	"fmt"
	"sync"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
)

// Restarter starts a role's instances again after a crash (a perturb
// step's): a new instance, with no memory of the one that died, as a
// restarted pod. conformance/player is one for every role it plays; a
// role with none cannot be crashed.
type Restarter interface {
	// StartAgain starts again an actor the scheduler killed (virtual time).
	StartAgain(ctx context.Context, actor string) error
	// Crash kills the process of an executable's instance (actor), with
	// detail on the timeline, and starts it again (process mode).
	Crash(ctx context.Context, actor, detail string) error
	// Executables are the actors of the instances executables play now
	// (process mode); none in virtual time.
	Executables() []string
}

// restarts are the roles' Restarters, by role (under mu).
type restarts struct {
	mu    sync.Mutex
	roles map[string]Restarter
}

// Restarts says how the run starts an actor of role again after a crash.
func (s *Stage) Restarts(role string, r Restarter) {
	s.restarts.mu.Lock()
	defer s.restarts.mu.Unlock()
	if s.restarts.roles == nil {
		s.restarts.roles = map[string]Restarter{}
	}
	s.restarts.roles[role] = r
}

// restarter is role's Restarter, or why it cannot be crashed.
func (s *Stage) restarter(role string) (Restarter, error) {
	s.restarts.mu.Lock()
	defer s.restarts.mu.Unlock()
	if r, ok := s.restarts.roles[role]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("the %s role cannot be crashed: its mechanism does not say how an instance of it starts again", role)
}

// perturb starts a perturb step's perturbation: a crash armed, or a view
// window (its end is queued with it).
func (s *scene) perturb(ctx context.Context, x *scenarios.Perturb) error {
	if s.sched.Realtime() {
		return s.perturbProcesses(ctx, x)
	}
	if c := x.Crash; c != nil {
		r, err := s.stage.restarter(x.Role)
		if err != nil {
			return err
		}
		cr := &sim.Crash{Role: x.Role, Actor: x.Actor, After: c.AfterWrites, Then: r.StartAgain}
		if c.RestartAfter != nil {
			cr.RestartAfter = s.stage.Scaled(c.RestartAfter.Duration)
		}
		s.crashes = true
		return s.sched.CrashAfter(cr)
	}
	if e := x.APIErrors; e != nil {
		h, err := s.fail(ctx, &scenarios.APIErrors{Role: x.Role, Actor: x.Actor, On: e.On, Code: e.Code, For: e.For}, true)
		if err == nil {
			s.errs[x] = h
		}
		return err
	}
	v := sim.View{Role: x.Role, Actor: x.Actor, Lose: x.LostEvents != nil}
	if w := x.LateEvents; w != nil {
		v.Delay = s.stage.Scaled(w.Delay.Duration)
	}
	if w := x.StaleReads; w != nil {
		v.Lag = s.stage.Scaled(w.Lag.Duration)
	}
	h, err := s.sched.Perturb(ctx, v)
	if err == nil {
		s.views[x] = h
	}
	return err
}

// unperturb ends a perturb step's window, if it started (else its step
// said why).
func (s *scene) unperturb(ctx context.Context, x *scenarios.Perturb) error {
	if actors, ok := s.lost[x]; ok {
		delete(s.lost, x)
		return s.loseEvents(ctx, x, actors, false)
	}
	if v, ok := s.views[x]; ok {
		delete(s.views, x)
		return s.sched.Unperturb(ctx, v)
	}
	if f, ok := s.errs[x]; ok {
		delete(s.errs, x)
		return s.sched.ClearFault(ctx, f)
	}
	return nil
}
