package conformance

import (
	"context"
	"fmt"
	"sync"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
)

// Restart starts an actor of a role again after a crash killed it: a new
// instance, with no memory of the one that died, as a restarted pod.
type Restart func(ctx context.Context, actor string) error

// restarts are the roles' Restarts, by role (under mu).
type restarts struct {
	mu    sync.Mutex
	roles map[string]Restart
}

// Restarts says how the run starts an actor of role again after a crash
// (a perturb step's): conformance/player says it for every role it plays.
// A role no one says it for cannot be crashed.
func (s *Stage) Restarts(role string, r Restart) {
	s.restarts.mu.Lock()
	defer s.restarts.mu.Unlock()
	if s.restarts.roles == nil {
		s.restarts.roles = map[string]Restart{}
	}
	s.restarts.roles[role] = r
}

func (s *Stage) restart(role string) Restart {
	s.restarts.mu.Lock()
	defer s.restarts.mu.Unlock()
	return s.restarts.roles[role]
}

// perturb starts a perturb step's perturbation: a crash armed, or a view
// window (its end is queued with it).
func (s *scene) perturb(ctx context.Context, x *scenarios.Perturb) error {
	if c := x.Crash; c != nil {
		restart := s.stage.restart(x.Role)
		if restart == nil {
			return fmt.Errorf("the %s role cannot be crashed: its mechanism does not say how an instance of it starts again", x.Role)
		}
		cr := &sim.Crash{Role: x.Role, Actor: x.Actor, After: c.AfterWrites, Then: restart}
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
