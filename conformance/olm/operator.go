package olm

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// The operator role: the operator OLM installed, whose writes tell OLM
// whether it may be upgraded (its CRs' conditions, its Probe when it is
// the Probe's manager, its OperatorCondition's spec.conditions).
//
// Its reference is the scenario's steps: setConditions, createCR's
// conditions, setProbeUpgradeable and setOperatorCondition are the
// operator's writes (actor "operator"), made when the steps say, so that
// the built-ins and their golden timelines are what they were before the
// role existed. A team's operator plays it as a Go reconciler (library
// mode, conformance.Reconciler) or an executable (process mode,
// processes.go), in its own scenarios, with the reference aggregator and
// gate; OLM-011 judges it.
//
// What a step is when a team's operator plays the role:
//   - operand (a request to the operator): the world writes the CR's
//     annotation opcert.io/operand (Migrating or Idle), as it does for the
//     reference; the operator, watching its CRs, reads it and says what it
//     says. A scenario for the reference gives, beside it, the reference's
//     writes as steps.
//   - setConditions, setProbeUpgradeable, setOperatorCondition, the
//     conditions of createCR and of the scenario's crs and
//     operatorCondition: the operator's own writes, skipped (the timeline
//     and the expectations count them): a team's operator writes what its
//     operands' state makes it write.
//   - createCR, deleteCR and the scenario's crs: the user's, who creates
//     and deletes CRs (actor "scenario"); the operator writes their status.
//   - the scenario's probe (manager operator, or nil spec) and
//     OperatorCondition: created as OLM installs them (actor "scenario");
//     the operator writes their status and spec.conditions.
//   - annotate and the scenario's crds: the CRDs' annotations come with the
//     operator's bundle, which OLM installs: the world's in every mode.
//   - a load's changes: the reference's writes, not made for a team (its
//     CRs are created, as the user's).
//   - kill and restart operator: the team's reconciler or process dies
//     and starts afresh; for the reference (steps) they do nothing.
//
// A team's reconciler gets one request, {operator's namespace, its CSV}
// (the name its Probe and OperatorCondition take, Instance.Name), at its
// start and at every change of its CRs (of the scenario's CRDs), its
// Probe and its OperatorCondition: it reads its state whole, as a
// level-triggered operator does.

// operatorImpl is one of opcert's own subjects of the operator role: the
// scenario's steps (the reference), or a flaw of them.
type operatorImpl string

// The operator role's own subjects: the reference and two broken
// subjects (OLM-011), one that makes none of the operator's writes and
// one that makes each a minute late.
const (
	operatorSteps operatorImpl = ""
	operatorMute  operatorImpl = "mute"
	operatorLate  operatorImpl = "late"
)

var operators = []conformance.Subject{
	{Name: "reference", Impl: operatorSteps,
		Description: "the scenario's steps: the operator's writes (its CRs' conditions, its Probe, its OperatorCondition) as and when the steps say"},
	{Name: string(operatorMute), Impl: operatorMute,
		Description: "never writes: the steps' writes of the operator are not made, so a migration never says it is not upgradeable (OLM-011)"},
	{Name: string(operatorLate), Impl: operatorLate,
		Description: "makes each of the steps' writes of the operator " + lateBy.String() + " after the step, twice the reaction bound (OLM-011)"},
}

// lateBy is how late the late subject writes.
const lateBy = time.Minute

// teamOperator tells whether the operator's writes are not the steps':
// a team's reconciler or executable, or the mute subject.
func (w *world) teamOperator() bool {
	impl := w.cast[RoleOperator].Impl
	return impl != operatorSteps && impl != operatorLate
}

// ownWrite makes one of the steps' writes of the operator: at once, or
// lateBy later for the late subject (its error then ends the run when
// the write is due, as a step's would).
func (w *world) ownWrite(ctx context.Context, write func(context.Context) error) error {
	if w.cast[RoleOperator].Impl != operatorLate {
		return write(ctx)
	}
	w.st.Sched.At(w.st.Sched.Now().Add(w.st.Scaled(lateBy)), write)
	return nil
}

// checkOperator refuses a subject the operator role cannot be played by
// here, and starts it when it runs on its own.
func (w *world) checkOperator(ctx context.Context) error {
	switch impl := w.cast[RoleOperator].Impl.(type) {
	case operatorImpl:
		return nil
	case conformance.Reconciler:
		return w.startOperator(ctx)
	case conformance.Process:
		var err error
		w.execs, err = newExecs(ctx, w, impl)
		return err
	case conformance.Deployment:
		return w.deployed.Start(ctx, actorOperator)
	}
	return fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleOperator, w.cast[RoleOperator].Impl)
}

// operatorRequest is the one request a team's operator gets.
func (w *world) operatorRequest() reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: w.spec.namespace(), Name: w.spec.csv()}}
}

// startOperator starts a team's reconciler (library mode).
func (w *world) startOperator(ctx context.Context) error {
	sched := w.st.Sched
	impl := w.cast[RoleOperator].Impl.(conformance.Reconciler)
	r, err := impl.New(conformance.Instance{Client: sched.Client(w.st.API, actorOperator, RoleOperator), Clock: sched.Clock(), Name: w.spec.csv()})
	if err != nil {
		return fmt.Errorf("building the team's operator: %w", err)
	}
	req := w.operatorRequest()
	toOperator := func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{req} }
	watches := []sim.Watch{{GVK: ProbeGVK, Map: toOperator}, {GVK: OperatorConditionGVK, Map: toOperator}}
	for _, kind := range sortedKeys(ownedCRDs) {
		watches = append(watches, sim.Watch{GVK: crGVK(ownedCRDs[kind]), Map: toOperator})
	}
	return sched.Start(ctx, sim.Actor{Name: actorOperator, Role: RoleOperator, Reconciler: r, Watches: watches,
		Initial: []reconcile.Request{req}})
}

// killOperator and restartOperator are the kill and restart steps of
// the operator: a team's reconciler or process dies, and starts afresh;
// its Deployment is scaled to 0, and back.
func (w *world) killOperator(ctx context.Context) error {
	if w.deployed != nil {
		return w.deployed.Kill(ctx, actorOperator)
	}
	if w.execs != nil {
		return w.execs.kill(ctx)
	}
	if sched := w.st.Sched; sched.Running(actorOperator) {
		return sched.Kill(ctx, actorOperator)
	}
	return nil
}

func (w *world) restartOperator(ctx context.Context) error {
	if w.deployed != nil {
		return w.deployed.Restart(ctx, actorOperator)
	}
	if err := w.killOperator(ctx); err != nil {
		return err
	}
	switch w.cast[RoleOperator].Impl.(type) {
	case conformance.Reconciler:
		return w.startOperator(ctx)
	case conformance.Process:
		return w.execs.start(ctx)
	}
	return nil
}

// notMine is what a step of the operator's own writes returns when the
// steps do not play the operator.
func notMine(what string) error {
	return &conformance.Skipped{Reason: what + " is the operator's own write: the " + RoleOperator + " role's subject makes it, or not, as its operands' state says"}
}

// user is the client that creates and deletes CRs: the operator's in the
// reference's world, where the steps make them with their conditions
// (as before the role existed); the user's when the operator is a
// team's, which writes only their status.
func (w *world) user() client.Client {
	if w.teamOperator() {
		return w.scenario
	}
	return w.operator
}

// operand is the operand step: the world writes the CR's annotation that
// tells the operator its operand's phase.
func (w *world) operand(ctx context.Context, o *Operand) error {
	u := object(crGVK(o.Kind), o.Namespace, o.Name)
	if err := w.scenario.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		return fmt.Errorf("reading %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[OperandAnnotation] = o.Phase
	u.SetAnnotations(ann)
	return w.scenario.Update(ctx, u)
}

// recordProcess puts a start or kill of the operator's process on the
// timeline: OLM-011 owes nothing while it is down.
func (w *world) recordProcess(ctx context.Context, verb string) {
	w.st.Sched.Record(ctx, timeline.Event{Actor: actorOperator, Role: RoleOperator, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actorOperator}})
}
