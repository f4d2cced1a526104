package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// A scenario's expect steps are written once and played by any faithful
// subject, in virtual or real time, so they hold for the subjects the way
// the rules do (the decisions):
//
//   - A step at T holds if its checks match at some instant from T to T+w,
//     w being the reaction bound the run judges with (plus the real-time
//     tolerance in real time): a subject that acts a requeue later than
//     the reference, or a process whose first write lands 150ms after its
//     start, still meets it. A step that holds at T is recorded at T, so
//     the reference's timelines do not move; one that held later is
//     recorded when its window closes, saying when it held.
//   - Texts (reason, message, messagePrefix) are compared only where the
//     condition was written by a role's reference or by the world opcert
//     plays (the scenario, the kubelet, a detector of opcert's): a team's
//     operator, or a faithful variant, chooses its own texts, which no
//     seed fixes. Its conditions are checked on their status; a step with
//     nothing else to check is "not compared", never "held".
//   - On a cluster a step may be carried out as the cluster does it,
//     unlike the simulated world the expectations were written for
//     (Unlike): a step that fails after it is "not owed", said with the
//     step, never "held" nor "failed"; the rules judge what happened.

// expectation is one expect step being checked.
type expectation struct {
	x     *scenarios.Expect
	gvk   schema.GroupVersionKind
	ref   timeline.ObjectRef
	since time.Time // the step's instant
}

// expect checks one condition and records the outcome on the timeline,
// at once if it holds or the run allows no window, else when its window
// closes (settle). An object the server says is not there does not match;
// a read the client refuses to send (a kind the server does not serve, a
// namespaced kind without a namespace) is the step's error: it could never
// hold.
func (s *scene) expect(ctx context.Context, x *scenarios.Expect) error {
	gvk := s.expects
	if x.Kind != "" {
		gvk = schema.FromAPIVersionAndKind(x.APIVersion, x.Kind)
	}
	ex := &expectation{x: x, gvk: gvk, since: s.sched.Now(),
		ref: timeline.ObjectRef{Kind: gvk.Kind, Group: gvk.Group, Namespace: x.Namespace, Name: x.Object}}
	o, err := s.observe(ctx, ex)
	if err != nil {
		return err
	}
	if o.met() || s.window <= 0 {
		s.record(ctx, ex, o, "")
		return nil
	}
	closes := ex.since.Add(s.window)
	if s.end.Before(closes) {
		closes = s.end
	}
	if !closes.After(ex.since) {
		s.record(ctx, ex, o, "")
		return nil
	}
	s.sched.At(closes, func(ctx context.Context) error { return s.settle(ctx, ex) })
	return nil
}

// settle closes an expectation's window: the first recorded change of the
// condition inside it that meets the step, else the state at its close if
// it does. A step that met nothing but a state whose texts were all the
// subject's own is "not compared" (it holds, and proves nothing); one that
// met nothing at all failed, with what was seen last.
func (s *scene) settle(ctx context.Context, ex *expectation) error {
	var vacuous *observation
	vacuousAt := time.Time{}
	for _, e := range s.changes(ex) {
		for _, ch := range e.Conditions {
			if ch.Type != ex.x.Condition {
				continue
			}
			at := e.Time
			if at.Before(ex.since) {
				at = ex.since // the state it held at the step
			}
			switch o := check(ex.x, ch.After, s.ownTexts(e.Role)); {
			case o.met():
				s.record(ctx, ex, o, s.heldAt(ex, at))
				return nil
			case o.holds() && vacuous == nil:
				vacuous, vacuousAt = &o, at
			}
		}
	}
	o, err := s.observe(ctx, ex)
	if err != nil {
		return err
	}
	switch now := s.sched.Now(); {
	case o.met():
		s.record(ctx, ex, o, s.heldAt(ex, now))
	case vacuous != nil:
		s.record(ctx, ex, *vacuous, s.heldAt(ex, vacuousAt))
	case o.holds():
		s.record(ctx, ex, o, s.heldAt(ex, now))
	default:
		s.record(ctx, ex, o, fmt.Sprintf(" (from the step to %s later)", now.Sub(ex.since)))
	}
	return nil
}

// heldAt says when, in its window, an expectation held (nothing if at
// its step).
func (s *scene) heldAt(ex *expectation, at time.Time) string {
	if !at.After(ex.since) {
		return ""
	}
	return fmt.Sprintf(" at %s, %s after the step", judge.OffsetOf(at.Sub(s.origin)), at.Sub(ex.since))
}

// observation is what one read of the condition showed.
type observation struct {
	cond     *timeline.Condition
	problems []string
	// compared says a check was made: false when every check set was a
	// text of a subject's own.
	compared bool
	// unjudged names the texts left to their writer (for the detail).
	unjudged []string
}

func (o observation) holds() bool { return len(o.problems) == 0 }

// met says the step held and checked something.
func (o observation) met() bool { return o.holds() && o.compared }

// observe reads the condition now. The object is read as its Go type when
// the scheme has one (so the run's store answers, as it does the actors),
// else as unstructured.
func (s *scene) observe(ctx context.Context, ex *expectation) (observation, error) {
	obj, err := s.client.Scheme().New(ex.gvk)
	if err != nil {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ex.gvk)
		obj = u
	}
	key := types.NamespacedName{Namespace: ex.x.Namespace, Name: ex.x.Object}
	if err := s.client.Get(ctx, key, obj.(client.Object)); err != nil && !refused(err) && stepFault(ctx, err) {
		return observation{}, err
	} else if err != nil {
		return observation{problems: []string{err.Error()}, compared: true}, nil
	}
	c := find(sim.Conditions(obj), ex.x.Condition)
	return check(ex.x, c, s.ownTexts(s.writer(ex))), nil
}

// check compares one state of the condition (nil: absent) with the step;
// own says its texts are compared.
func check(x *scenarios.Expect, c *timeline.Condition, own bool) observation {
	o := observation{cond: c, compared: true}
	if c == nil {
		o.problems = []string{"condition " + x.Condition + " is absent"}
		return o
	}
	if x.Status != "" && c.Status != x.Status {
		o.problems = append(o.problems, fmt.Sprintf("status is %s, want %s", c.Status, x.Status))
	}
	texts := map[string]bool{"reason": x.Reason != "", "message": x.Message != "", "messagePrefix": x.MessagePrefix != ""}
	if !own {
		for _, k := range []string{"reason", "message", "messagePrefix"} {
			if texts[k] {
				o.unjudged = append(o.unjudged, k)
			}
		}
		o.compared = x.Status != ""
		return o
	}
	if x.Reason != "" && c.Reason != x.Reason {
		o.problems = append(o.problems, fmt.Sprintf("reason is %q, want %q", c.Reason, x.Reason))
	}
	if x.Message != "" && c.Message != x.Message {
		o.problems = append(o.problems, fmt.Sprintf("message is %q, want %q", clip(c.Message), clip(x.Message)))
	}
	if x.MessagePrefix != "" && !strings.HasPrefix(c.Message, x.MessagePrefix) {
		o.problems = append(o.problems, fmt.Sprintf("message is %q, want it to start with %q", clip(c.Message), clip(x.MessagePrefix)))
	}
	return o
}

// record puts the expectation's outcome on the timeline; when says when it
// held (or how long it was looked for) if not at its step.
func (s *scene) record(ctx context.Context, ex *expectation, o observation, when string) {
	e := timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbExpect, Object: ex.ref}
	if o.cond != nil {
		e.Conditions = []timeline.ConditionChange{{Type: ex.x.Condition, After: o.cond}}
	}
	head := ex.x.Object + " " + ex.x.Condition
	switch {
	case !o.holds() && s.unlike != "":
		// The world is no longer the one the step was written for.
		e.Detail = head + judge.UnlikeMark + ": " + strings.Join(o.problems, "; ") + when + ", after " + s.unlike
	case !o.holds():
		e.Failed, e.Detail = true, head+": "+strings.Join(o.problems, "; ")+when
	case !o.compared:
		e.Detail = head + judge.NotComparedMark + ": the subject chose its " + strings.Join(o.unjudged, " and ") + when
	case len(o.unjudged) > 0:
		e.Detail = head + ": as expected" + when + " (its status; the subject chose its " + strings.Join(o.unjudged, " and ") + ")"
	default:
		e.Detail = head + ": as expected" + when
	}
	s.sched.Record(ctx, e)
}

// writes are the recorded writes of the expectation's object that changed
// its condition, up to now, in time order.
func (s *scene) writes(ex *expectation) []timeline.Event {
	var out []timeline.Event
	for _, e := range s.tl.Events() {
		if e.IsWrite() && e.Object == ex.ref && !e.Time.After(s.sched.Now()) && changed(e, ex.x.Condition) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b timeline.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// changes are the writes after the expectation's step, and the last one
// before it, which gave the condition the state it had at the step (at its
// instant, writes come after it). In real time the step's read may not
// show that write yet (the run's store follows the API server's watch,
// tens of milliseconds late), while the timeline files it at the instant
// the server made it.
func (s *scene) changes(ex *expectation) []timeline.Event {
	out := s.writes(ex)
	first := 0
	for i, e := range out {
		if e.Time.Before(ex.since) {
			first = i
		}
	}
	return out[first:]
}

// writer is the role whose write gave the condition its present state, as
// far as the timeline knows ("" if it holds no such write).
func (s *scene) writer(ex *expectation) string {
	if w := s.writes(ex); len(w) > 0 {
		return w[len(w)-1].Role
	}
	return ""
}

func changed(e timeline.Event, condition string) bool {
	return slices.ContainsFunc(e.Conditions, func(c timeline.ConditionChange) bool { return c.Type == condition })
}

func find(conds []timeline.Condition, typ string) *timeline.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// clip keeps messages in failure details readable; the timeline has them whole.
func clip(s string) string {
	const limit = 240
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// ExpectedKind is the kind an expect step of a mechanism's scenarios
// reads when it names none: its part of the scenario format says it
// (scenarios.Kind.Expects); zero for a mechanism with no scenario kind.
func ExpectedKind(mechanism string) schema.GroupVersionKind {
	for _, k := range scenarios.Kinds() {
		if k.Mechanism == mechanism {
			return k.Expects
		}
	}
	return schema.GroupVersionKind{}
}
