package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Perturbations in process mode go through each executable's proxy, which
// sees its requests (process.Proxy): a crash cuts the process off right
// after its n-th write and the run kills and starts it again; lost
// notifications are watch events the proxy drops, and at the window's end
// its watches are closed and resumed with 410 Expired, so its informers
// relist. Late and stale views and API errors are not made there (the
// proxy delays nothing and answers no request itself), nor anything on a
// cluster, where opcert is in front of no operator (RealTimeFaults).

// perturbProcesses starts a perturb step's crash or lost notifications on
// the executables of its role (or its one actor). In real time a crash
// counts each process's own writes: processes write concurrently, so
// "the role's n-th write" would not name one of them.
func (s *scene) perturbProcesses(ctx context.Context, x *scenarios.Perturb) error {
	if x.Crash != nil {
		return s.crashProcesses(x)
	}
	r, err := s.stage.restarter(x.Role)
	if err != nil || s.stage.Processes == nil {
		return fmt.Errorf("the %s role is not played by executables: a perturbation in real time goes through an executable's proxy", x.Role)
	}
	actors := r.Executables()
	if x.Actor != "" {
		actors = slices.DeleteFunc(actors, func(a string) bool { return a != x.Actor })
	}
	if len(actors) == 0 {
		return fmt.Errorf("no executable of the %s role runs%s", x.Role, map[bool]string{true: " as " + x.Actor}[x.Actor != ""])
	}
	switch {
	case x.LostEvents != nil:
		s.lost[x] = actors
		return s.loseEvents(ctx, x, actors, true)
	}
	return errors.New(x.Kind() + " is not made in real time: its processes see the API server through a proxy that delays nothing and answers no request itself; play the scenario in virtual time (opcert's subjects, a team's reconciler)")
}

// crashProcesses arms a perturb step's crash on the executables of its
// role: each is cut off after its own n-th write and the run kills it and
// starts it again (its Restarter). A step at the scenario's start is
// armed before the world starts them (queue), so that it counts from
// their first write.
func (s *scene) crashProcesses(x *scenarios.Perturb) error {
	if s.stage.Processes == nil {
		return fmt.Errorf("the %s role is not played by executables: a perturbation in real time goes through an executable's proxy", x.Role)
	}
	s.crashes = true
	detail := fmt.Sprintf("%scrash after write %d", timeline.PerturbationDetail, x.Crash.AfterWrites)
	return s.stage.Processes.CrashEach(x.Role, x.Actor, x.Crash.AfterWrites, func(name string) {
		at := s.sched.Now()
		if rs := x.Crash.RestartAfter; rs != nil {
			at = at.Add(s.stage.Scaled(rs.Duration))
		}
		s.sched.At(at, func(ctx context.Context) error {
			r, err := s.stage.restarter(x.Role)
			if err != nil {
				return err
			}
			return r.Crash(ctx, name, detail)
		})
	})
}

// loseEvents turns the lost notifications of actors' processes on or off,
// with a fault or clear event each.
func (s *scene) loseEvents(ctx context.Context, x *scenarios.Perturb, actors []string, on bool) error {
	verb := timeline.VerbClear
	if on {
		verb = timeline.VerbFault
	}
	for _, a := range actors {
		if err := s.stage.Processes.LoseEvents(a, on); err != nil {
			return err
		}
		s.sched.Record(ctx, timeline.Event{Actor: a, Role: x.Role, Verb: verb,
			Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: a}, Detail: timeline.PerturbationDetail + "notifications lost (a relist at the end)"})
	}
	return nil
}
