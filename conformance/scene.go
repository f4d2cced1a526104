package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// scene carries out scenario steps as the "scenario" actor.
type scene struct {
	sched   *sim.Scheduler
	client  client.Client
	expects schema.GroupVersionKind // what expect reads when it names no kind
	// actions carries out the mechanism's actions, set once it has built
	// the world.
	actions *Actions
	source  string // the scenario file, for errors
	// faults are the apiErrors windows in force, by their step's value,
	// and views the perturb windows (perturb.go).
	faults map[*scenarios.APIErrors]*sim.Fault
	views  map[*scenarios.Perturb]*sim.Perturbed
	errs   map[*scenarios.Perturb]*sim.Fault
	// lost are the executables whose notifications a perturb step loses
	// (perturb_realtime.go), and crashes says a perturb step armed a crash.
	lost    map[*scenarios.Perturb][]string
	crashes bool
	// stage is the run's: its restarters, its time scale.
	stage *Stage

	// What expect steps are checked with (expect.go): the timeline they
	// read changes from, the run's origin and end, the window after a step
	// in which it may hold, and whether a role's texts are compared.
	tl       *timeline.Timeline
	origin   time.Time
	end      time.Time
	window   time.Duration
	ownTexts func(role string) bool
	// unlike names the first step carried out unlike the simulated world
	// (Unlike) or perturbing it, after which a failed expectation is not
	// held against the subject; "" while there is none.
	unlike string
}

// queue queues a step at its time and, for an apiErrors step, the end of
// its window: both before any controller work, so that at their instants
// they come first (the window is [at, at+for) for the controllers).
func (s *scene) queue(stage *Stage, st scenarios.Step) error {
	if x := st.Perturb; x != nil && x.Crash != nil && st.Time == 0 && s.sched.Realtime() {
		// Armed before the world starts its processes (perturb_realtime.go).
		if err := s.crashProcesses(x); err != nil {
			return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err, Cannot: true}
		}
		return nil
	}
	s.sched.At(stage.At(st.Time), s.step(st))
	if x := st.APIErrors; x != nil {
		s.sched.At(stage.At(st.Time+x.For.Duration), func(ctx context.Context) error {
			f := s.faults[x]
			delete(s.faults, x)
			return s.sched.ClearFault(ctx, f)
		})
	}
	if x := st.Perturb; x != nil && x.For() > 0 {
		s.sched.At(stage.At(x.End(st.Time)), func(ctx context.Context) error { return s.unperturb(ctx, x) })
	}
	return nil
}

func (s *scene) step(st scenarios.Step) func(context.Context) error {
	return func(ctx context.Context) error {
		var err error
		switch {
		case st.Create != nil:
			err = s.create(ctx, st.Create)
		case st.Expect != nil:
			err = s.expect(ctx, st.Expect)
		case st.APIErrors != nil:
			if err = s.failCalls(ctx, st.APIErrors); err != nil {
				return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err, Cannot: true}
			}
		case st.Perturb != nil:
			if err = s.perturb(ctx, st.Perturb); err != nil {
				return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err, Cannot: true}
			}
			if s.unlike == "" {
				// The expectations were written for the unperturbed world,
				// which convergence judges the run against.
				s.unlike = fmt.Sprintf("step %s:%d perturb at +%s (%s), which the expectations were not written for", s.source, st.Line, st.Time, st.Perturb)
			}
		case st.Action != "":
			err = (*s.actions).Do(ctx, st.Action, st.Arg)
			var skipped *Skipped
			if errors.As(err, &skipped) {
				s.sched.Record(ctx, timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbSkip,
					Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: fmt.Sprintf("%s:%d", s.source, st.Line)},
					Detail: st.Action + ": " + skipped.Reason})
				return nil
			}
			var unlike *Unlike
			if errors.As(err, &unlike) {
				step := fmt.Sprintf("%s:%d", s.source, st.Line)
				s.sched.Record(ctx, timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbUnlike,
					Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: step}, Detail: st.Action + ": " + unlike.Reason})
				if s.unlike == "" {
					s.unlike = fmt.Sprintf("step %s %s at +%s, which the cluster played unlike the simulated world", step, st.Action, st.Time)
				}
				return nil
			}
		}
		switch {
		case err == nil:
			return nil
		case st.Action == "" && stepFault(ctx, err):
			return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err}
		case st.Action != "" && s.perturbed(err):
			return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err, Cannot: true}
		}
		return fmt.Errorf("step at line %d (+%s): %w", st.Line, st.Time, err)
	}
}

// perturbed tells whether an error of the world's own work (an action, a
// write the mechanism queued as a role: an operator's scripted write) is
// one a perturbation of that role made: the API errors the run injects,
// a conflict after a stale read, a crash. The scenario cannot go on as
// written then, and no subject is to blame.
func (s *scene) perturbed(err error) bool {
	return s.perturbing() && (apierrors.ReasonForError(err) != metav1.StatusReasonUnknown || errors.Is(err, sim.ErrCrashed))
}

// metPerturbation turns the error that stopped a run into a step that
// cannot be carried out when a perturbation made it (perturbed): the
// subjects' own errors never stop a run (the scheduler retries them);
// the world's work queued by its mechanism can.
func (s *scene) metPerturbation(err error) error {
	var step *StepError
	if err == nil || errors.As(err, &step) || !s.perturbed(err) {
		return err
	}
	return &StepError{Source: s.source, At: s.sched.Now().Sub(s.origin), Err: err, Cannot: true}
}

// perturbing tells whether API errors are injected now (apiErrors steps,
// perturb steps' apiErrors) or the scenario perturbs a role.
func (s *scene) perturbing() bool { return len(s.faults)+len(s.errs)+len(s.views) > 0 || s.crashes }

// unhandled is the first step of sc whose action actions cannot carry
// out (the world was bound to another list of actions than its kind
// declares), as an error that stops the run before it starts; nil when
// they can carry out every step's.
func (s *scene) unhandled(actions Actions, sc *scenarios.Scenario) error {
	for _, st := range sc.Steps {
		if st.Action == "" {
			continue
		}
		if err := actions.Handles(sc, st.Action); err != nil {
			return &StepError{Source: s.source, Line: st.Line, At: st.Time, Err: err, Cannot: true}
		}
	}
	return nil
}

// failCalls starts an apiErrors window.
func (s *scene) failCalls(ctx context.Context, x *scenarios.APIErrors) error {
	h, err := s.fail(ctx, x, false)
	if err == nil {
		s.faults[x] = h
	}
	return err
}

// fail starts the API fault x says, a perturbation's if perturbation.
func (s *scene) fail(ctx context.Context, x *scenarios.APIErrors, perturbation bool) (*sim.Fault, error) {
	f := sim.APIFault{Role: x.Role, Actor: x.Actor, Code: x.Code, Calls: sim.Reads | sim.Writes, Perturbation: perturbation}
	switch x.On {
	case scenarios.OnReads:
		f.Calls = sim.Reads
	case scenarios.OnWrites:
		f.Calls = sim.Writes
	}
	if x.RetryAfter != nil {
		f.RetryAfter = x.RetryAfter.Duration
	}
	for _, k := range x.Kinds {
		f.Kinds = append(f.Kinds, schema.ParseGroupKind(k))
	}
	return s.sched.FailCalls(ctx, f)
}

// create creates an object (and its status, which a create drops).
func (s *scene) create(ctx context.Context, obj map[string]any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return err
	}
	status, hasStatus := u.Object["status"]
	if err := s.client.Create(ctx, u); err != nil {
		return err
	}
	if !hasStatus {
		return nil
	}
	u.Object["status"] = status
	return s.client.Status().Update(ctx, u)
}
