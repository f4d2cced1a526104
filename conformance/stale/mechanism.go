// Package stale plugs seed 000 (stale ClusterOperator detection) into the
// harness: its roles (detector, operator), the reference and broken
// subjects for each, the world a scenario builds; the STALE rules are in
// conformance/stale/rules, which does not import the reference.
package stale

import (
	"context"
	"errors"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/conformance/stale/rules"
	"github.com/opcert/opcert/reference/operator"
	"github.com/opcert/opcert/reference/stale"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// ClusterOperatorGVK is the kind the mechanism works on.
var ClusterOperatorGVK = configv1.GroupVersion.WithKind("ClusterOperator")

// Mechanism returns seed 000's plug-in, judged against cfg; a recording
// takes the default detector managers for the detector.
func Mechanism(cfg Config) conformance.Mechanism {
	return MechanismRecording(cfg, DefaultDetectorManagers)
}

// MechanismRecording is Mechanism with the field managers a recording of a
// live cluster takes for the detector (recording.go).
func MechanismRecording(cfg Config, detectorManagers []string) conformance.Mechanism {
	return &mechanism{cfg: cfg, detectorManagers: detectorManagers,
		// The reaction bound is 000 §Test Plan's minimum stale-message
		// update time (--answer-budget its older name: Config.Timing).
		Tuned: conformance.Tune(cfg, func(c Config) conformance.Mechanism { return MechanismRecording(c, detectorManagers) }),
		Declared: conformance.Declare("stale", "000", []conformance.Role{
			{Name: RoleDetector, Subjects: detectors, Forms: conformance.AllForms, Placeholders: detectorPlaceholders},
			{Name: RoleOperator, Subjects: operators, Forms: conformance.AllForms, Placeholders: placeholders},
		}, rules.Rules(cfg), conformance.With(cfg, build))}
}

// mechanism is seed 000's plug-in: the world judged against cfg, whose
// recordings take detectorManagers for the detector. It can be recorded
// and judged streaming, with a tolerance (recording.go), played on a
// cluster (deployments.go), scaled and given a reaction bound.
type mechanism struct {
	conformance.Declared
	conformance.Tuned[Config, *Config]
	cfg              Config
	detectorManagers []string
}

func (m *mechanism) Estimate(sc *scenarios.Scenario) int { return estimate(m.cfg, sc) }

// Scaled: the challenge and the mark come sooner; the reaction bound,
// which judges how fast operator and detector act, stays what it is (000
// §Test Plan's 30s). The mark's text states the world's silence (20
// minutes), which the run plays faster, as the scenario states it.
func (m *mechanism) Scaled(scale float64) conformance.Mechanism {
	c := m.cfg
	c.Silence = m.cfg.Stated()
	c.ChallengeAfter = time.Duration(float64(c.ChallengeAfter) * scale)
	c.UnknownAfter = time.Duration(float64(c.UnknownAfter) * scale)
	return MechanismRecording(c, m.detectorManagers)
}

// Touches: with the operators as Deployments, a run on a cluster scales
// them and the detector writes their ClusterOperators (deployments.go).
func (m *mechanism) Touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	return touches(sc, cast)
}

// ClusterKinds: opcert's own operators create their ClusterOperators.
func (m *mechanism) ClusterKinds() []schema.GroupKind {
	return []schema.GroupKind{ClusterOperatorGVK.GroupKind()}
}

// Namespaces: none; the world creates cluster-scoped ClusterOperators.
func (m *mechanism) Namespaces(*scenarios.Scenario) []string { return nil }

// Access: every run's rights suffice.
func (m *mechanism) Access(*scenarios.Scenario, conformance.Cast) []conformance.Access { return nil }

// world is a scenario's running operators and detector.
type world struct {
	st *conformance.Stage
	// operator makes the reference and the operators broken from it;
	// ownOperator one written apart (a faithful variant, a broken one);
	// external, a team's (conformance.Reconciler), when the cast has one.
	operator         operatorImpl
	ownOperator      ownOperatorImpl
	externalOperator *conformance.Reconciler
	// play plays the operators whatever the form (package player);
	// operands is where an executable's operand files are (process mode).
	play     *player.Player
	operands string
	ops      map[string]*op
	// detector plays the detector whatever the form; cfg holds the
	// thresholds its executable is given (detector_process.go).
	detector *player.Player
	cfg      Config
	// params and decide make each detector process the run starts;
	// ownDetector (with params' thresholds) or externalDetector, a team's,
	// replaces them.
	params           stale.Params
	decide           decideFunc
	ownDetector      ownDetectorImpl
	externalDetector *conformance.Reconciler
}

// op is one simulated operator process and what its operand reports.
type op struct {
	spec  Operator
	want  []operator.Condition
	delay time.Duration   // how long it takes to answer
	live  operatorProcess // nil while dead
}

func build(ctx context.Context, st *conformance.Stage, cfg Config, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	w := &world{st: st, cfg: cfg, ops: map[string]*op{}}
	var err error
	switch impl := cast[RoleOperator].Impl.(type) {
	case operatorImpl:
		w.operator = impl
	case ownOperatorImpl:
		w.ownOperator = impl
	case conformance.Reconciler:
		w.externalOperator = &impl
	default:
		if !player.Takes(impl) {
			return nil, fmt.Errorf("stale: the operator role cannot be played by %T", impl)
		}
	}
	fleet := scenarioWorld(sc).Fleet()
	if w.play, err = player.New(ctx, st, cast[RoleOperator].Impl, w.operatorSpec(fleet)); err != nil {
		return nil, fmt.Errorf("stale: %w", err)
	}
	if w.play.Outside() {
		w.noteNotGiven(ctx)
	}
	switch impl := cast[RoleDetector].Impl.(type) {
	case detectorImpl:
		w.params, w.decide = impl(stale.Params{ChallengeAfter: cfg.ChallengeAfter, UnknownAfter: cfg.UnknownAfter, Silence: cfg.Silence})
	case ownDetectorImpl:
		w.params, w.ownDetector = stale.Params{ChallengeAfter: cfg.ChallengeAfter, UnknownAfter: cfg.UnknownAfter, Silence: cfg.Silence}, impl
	case conformance.Reconciler:
		w.externalDetector = &impl
	default:
		if !player.Takes(impl) {
			return nil, fmt.Errorf("stale: the detector role cannot be played by %T", impl)
		}
	}
	if w.detector, err = player.New(ctx, st, cast[RoleDetector].Impl, w.detectorSpec()); err != nil {
		return nil, fmt.Errorf("stale: %w", err)
	}
	w.chaos(sc, fleet)
	if err := w.detector.Start(ctx, RoleDetector); err != nil {
		return nil, err
	}
	var started []string
	for _, spec := range fleet {
		// The answer delay is the world's, as its scenario gives it: a run
		// at a time scale plays it faster, as it does the waits it sits in
		// (an operator's 20s against the detector's 10 minutes).
		o := &op{spec: spec, delay: st.Scaled(time.Second)}
		if spec.AnswerDelay != nil {
			o.delay = st.Scaled(spec.AnswerDelay.Duration)
		}
		for _, c := range spec.Conditions {
			o.want = append(o.want, toCondition(c))
		}
		w.ops[spec.Name] = o
		if spec.Stopped { // a team's Deployment may be running: stop it
			err = w.play.Stop(ctx, spec.Name)
		} else {
			err = w.play.Start(ctx, spec.Name)
			started = append(started, spec.Name)
		}
		if err != nil {
			return nil, err
		}
	}
	if w.play.Executable() {
		w.awaitFirstWrites(ctx, started)
	}
	return stepActions.On(w), nil
}

func toCondition(c scenarios.Condition) operator.Condition {
	return operator.Condition{Type: configv1.ClusterStatusConditionType(c.Type), Status: configv1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message}
}

func (w *world) get(name string) (*op, error) {
	o, ok := w.ops[name]
	if !ok {
		return nil, fmt.Errorf("no operator %q in this scenario", name)
	}
	return o, nil
}

func (w *world) request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Name: name}}
}

// simulate launches a fresh operator process of opcert's or a team's
// reconciler (its memory starts empty).
func (w *world) simulate(ctx context.Context, name string) error {
	o, err := w.get(name)
	if err != nil {
		return err
	}
	actor := OperatorActor(name)
	c := w.st.Sched.Client(w.st.API, actor, RoleOperator)
	var rec reconcile.Reconciler
	switch {
	case w.externalOperator != nil:
		if rec, err = w.externalOperator.New(conformance.Instance{Client: c, Clock: w.st.Sched.Clock(), Name: name}); err != nil {
			return fmt.Errorf("starting operator %s: %w", name, err)
		}
	case w.ownOperator != nil:
		p := w.ownOperator(c, w.st.Sched.Clock(), name, o.delay, append([]operator.Condition(nil), o.want...))
		o.live, rec = p, p
	default:
		delay, compare := w.operator(o.delay)
		live := operator.New(c, w.st.Sched.Clock(), name, delay, append([]operator.Condition(nil), o.want...))
		live.Compare = compare
		o.live, rec = live, live
	}
	return w.st.Sched.Start(ctx, sim.Actor{Name: actor, Role: RoleOperator, Reconciler: rec,
		Watches: []sim.Watch{{GVK: ClusterOperatorGVK, Name: name}},
		Initial: []reconcile.Request{w.request(name)}})
}

// startDetector starts a detector process with an empty memory. Like an
// informer's first list, it looks at every ClusterOperator there is (none at
// time zero; all of them when it is started again).
func (w *world) startDetector(ctx context.Context) error {
	c := w.st.Sched.Client(w.st.API, RoleDetector, RoleDetector)
	var list configv1.ClusterOperatorList
	err := c.List(ctx, &list)
	if err != nil {
		return err
	}
	var initial []reconcile.Request
	for _, co := range list.Items {
		initial = append(initial, w.request(co.Name))
	}
	var det reconcile.Reconciler = &stale.Detector{Client: c, Clock: w.st.Sched.Clock(), Params: w.params, Decide: w.decide}
	if w.ownDetector != nil {
		det = w.ownDetector(c, w.st.Sched.Clock(), w.params.ChallengeAfter, w.params.UnknownAfter, w.params.Silence)
	}
	if w.externalDetector != nil {
		if det, err = w.externalDetector.New(conformance.Instance{Client: c, Clock: w.st.Sched.Clock()}); err != nil {
			return fmt.Errorf("starting the detector: %w", err)
		}
	}
	return w.st.Sched.Start(ctx, sim.Actor{Name: RoleDetector, Role: RoleDetector, Reconciler: det,
		Watches: []sim.Watch{{GVK: ClusterOperatorGVK}}, Initial: initial})
}

// RestartDetector starts a new detector process, killing the running one.
func (w *world) RestartDetector(ctx context.Context) error {
	return w.detector.Restart(ctx, RoleDetector)
}

// Kill, Hang and Reconnect of an operator that is not running do nothing,
// as killing a dead process does: a step (or a chaos fault, or a step left
// alone by shrinking) may come after the operator died.
func (w *world) Kill(ctx context.Context, name string) error {
	o, err := w.get(name)
	if err != nil || !w.play.Running(name) {
		return err
	}
	o.live = nil
	return w.play.Kill(ctx, name)
}

func (w *world) Restart(ctx context.Context, name string) error {
	if err := w.Kill(ctx, name); err != nil {
		return err
	}
	return w.play.Restart(ctx, name)
}

func (w *world) Hang(ctx context.Context, name string) error {
	return w.play.Hang(ctx, name, true)
}

func (w *world) Reconnect(ctx context.Context, name string) error {
	return w.play.Hang(ctx, name, false)
}

// stepActions are stale's step actions (scenario.go names them), each
// with its value's type and what carries it out on the world. The
// detector's killDetector and restartDetector take no value but true.
var stepActions = scenarios.Actions(
	scenarios.Act(actKill, (*world).Kill),
	scenarios.Act(actRestart, (*world).Restart),
	scenarios.Act(actHang, (*world).Hang),
	scenarios.Act(actReconnect, (*world).Reconnect),
	scenarios.Act(actSet, func(w *world, ctx context.Context, a SetCondition) error {
		return w.SetCondition(ctx, a.Operator, a.Condition)
	}),
	scenarios.Act(actSlow, func(w *world, ctx context.Context, a SlowOperator) error {
		return w.SetAnswerDelay(ctx, a.Operator, a.AnswerDelay.Duration)
	}),
	scenarios.Act(actKillDetector, func(w *world, ctx context.Context, _ bool) error { return w.detector.Kill(ctx, RoleDetector) }),
	scenarios.Act(actRestartDetector, func(w *world, ctx context.Context, _ bool) error { return w.RestartDetector(ctx) }),
)

// chaos queues the scenario's random faults. It runs first in build, so
// that at an instant faults run after the steps and before the actors, as
// they always have.
func (w *world) chaos(sc *scenarios.Scenario, fleet []Operator) {
	ch := scenarioWorld(sc).Chaos
	if ch == nil {
		return
	}
	names := make([]string, 0, len(fleet))
	for _, o := range fleet {
		names = append(names, o.Name)
	}
	for _, f := range ch.Plan(names, sc.Duration.Duration) {
		w.st.Sched.At(w.st.At(f.At), func(ctx context.Context) error {
			if f.Hang {
				return w.skipped(ctx, w.Hang(ctx, f.Process))
			}
			return w.Kill(ctx, f.Process)
		})
		if f.Until < sc.Duration.Duration {
			w.st.Sched.At(w.st.At(f.Until), func(ctx context.Context) error {
				if f.Hang {
					return w.skipped(ctx, w.Reconnect(ctx, f.Process))
				}
				return w.Restart(ctx, f.Process)
			})
		}
	}
}

// skipped records a fault that does not apply to the subjects (a hang of
// a Deployment) as a step does (conformance.Skipped), and lets the run go
// on.
func (w *world) skipped(ctx context.Context, err error) error {
	var skip *conformance.Skipped
	if !errors.As(err, &skip) {
		return err
	}
	w.st.Sched.Record(ctx, timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbSkip,
		Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: "chaos"}, Detail: "fault: " + skip.Reason})
	return nil
}

// SetCondition changes what the operand reports; a running operator is
// woken to write it, an executable finds it in its operand file.
func (w *world) SetCondition(ctx context.Context, name string, c scenarios.Condition) error {
	o, err := w.get(name)
	if err != nil {
		return err
	}
	if !w.opcerts() && !w.play.Executable() {
		return &conformance.Skipped{Reason: "the operator is not opcert's: what its operand reports is its own"}
	}
	cond := toCondition(c)
	// The operand's change is a fact of the world even while its operator
	// is down and nothing is written: the timeline shows it.
	before := findCondition(o.want, cond.Type)
	w.st.Sched.Record(ctx, timeline.Event{Time: w.st.Sched.Now(), Actor: timeline.RoleScenario, Role: timeline.RoleScenario,
		Verb: timeline.VerbSet, Object: timeline.ObjectRef{Kind: timeline.KindOperand, Name: name},
		Conditions: []timeline.ConditionChange{{Type: c.Type, Before: before, After: &timeline.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}}}})
	o.want = operator.Upsert(o.want, cond)
	if w.play.Executable() { // the process reads it from its operand file
		_, err := w.operandFile(name)
		return err
	}
	if o.live != nil {
		o.live.Set(cond)
		w.st.Sched.Enqueue(OperatorActor(name), w.request(name), w.st.Sched.Now())
	}
	return nil
}

// SetAnswerDelay makes an operator slower (or faster) from now on, across
// restarts, d being the world's (scaled as build scales the scenario's).
// A subject with its own delay (slow) keeps it.
func (w *world) SetAnswerDelay(_ context.Context, name string, d time.Duration) error {
	o, err := w.get(name)
	if err != nil {
		return err
	}
	if !w.opcerts() {
		return &conformance.Skipped{Reason: "the operator is not opcert's: how fast it answers is its own"}
	}
	o.delay = w.st.Scaled(d)
	if o.live == nil {
		return nil
	}
	delay := o.delay
	if w.operator != nil {
		delay, _ = w.operator(o.delay)
	}
	o.live.SetAnswerDelay(delay)
	return nil
}

// findCondition is the condition of type t that conds report, as the
// timeline writes it, or nil.
func findCondition(conds []operator.Condition, t configv1.ClusterStatusConditionType) *timeline.Condition {
	for _, c := range conds {
		if c.Type == t {
			return &timeline.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message}
		}
	}
	return nil
}
