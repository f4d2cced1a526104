package olm

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode: a team's operator binary plays the operator role
// (opcert run --subject olm.operator=exec:'./bin/manager ...'), in real
// time, against opcert's API server, with the reference aggregator and
// gate.
//
//   - One process, started with the run, and again at a restart step.
//   - Its command's placeholders, also set as OPCERT_<KEY> in its
//     environment: {name} its CSV's name as the API server holds it (the
//     name of its Probe and of its OperatorCondition: r01-foo-operator.v1.0.0),
//     {namespace} its own namespace, where they are, {namespaces} the
//     namespaces of its CRs (comma separated), {crds} its owned CRDs
//     (comma separated: foos.example.com), and {timeScale} the run's time
//     scale (an operator may scale its resync by it). The run's prefix is
//     applied to the names and namespaces: the process must use them as
//     given. {role} is "operator".
//   - The requests (operand steps) reach it as the annotation
//     opcert.io/operand on its CRs, which it watches.
//   - Its writes (its CRs' status, its Probe, its OperatorCondition) reach
//     the run through conformance.Feed, each put down by the API server's audit
//     to the process (actor "operator", role operator).
//   - kill is SIGKILL to its process group; it stays down until a restart
//     step. Both are process events on the timeline: OLM-011 owes nothing
//     while it is down.
//   - Time: scenario times are scaled (--time-scale), and so is the
//     reaction bound (conformance.Scalable.Scaled), judged with
//     conformance.RealtimeTolerance.

// execs runs the operator as an executable.
type execs struct {
	w     *world
	cmd   conformance.Process
	procs *conformance.Processes
}

// placeholders are the keys of vars, which the operator's command may use
// (conformance.Role.Placeholders).
var placeholders = []string{"name", "namespace", "namespaces", "crds", "timeScale"}

func newExecs(ctx context.Context, w *world, cmd conformance.Process) (*execs, error) {
	st := w.st
	if st.Processes == nil || !st.Sched.Realtime() {
		return nil, errors.New(Name + ": an operator that is an executable needs a real-time run on opcert's own API server (process mode)")
	}
	if err := conformance.Feed(ctx, st, feedRecording(), w.processWrote); err != nil {
		return nil, err
	}
	return &execs{w: w, cmd: cmd, procs: st.Processes}, nil
}

// feedRecording is what the run must see of the process's writes: its
// CRs, its Probe and its OperatorCondition, with the fields the rules
// read. A write no process made (the aggregator's, the copier's: the
// run's own actors) is not filed twice.
func feedRecording() *record.Recording {
	kinds := []schema.GroupVersionKind{ProbeGVK, OperatorConditionGVK}
	fields := map[schema.GroupVersionKind][]string{ProbeGVK: recordedFields[ProbeGVK], OperatorConditionGVK: recordedFields[OperatorConditionGVK]}
	for _, crd := range sortedKeys(ownedCRDs) {
		gvk := crGVK(ownedCRDs[crd])
		kinds = append(kinds, gvk)
		fields[gvk] = crFields
	}
	return &record.Recording{Kinds: kinds, Fields: fields, Role: func(string) string { return "" }}
}

// processVars are the placeholders of the operator's process, and of the
// aggregator's (aggregator_process.go).
func (w *world) processVars() map[string]string {
	sched, spec := w.st.Sched, w.spec
	var nss []string
	for _, ns := range spec.targets() {
		nss = append(nss, sched.ServerName(namespaceKind, ns))
	}
	return map[string]string{
		"name":       sched.ServerName(ProbeGVK.GroupKind(), spec.csv()),
		"namespace":  sched.ServerName(namespaceKind, spec.namespace()),
		"namespaces": strings.Join(nss, ","),
		"crds":       strings.Join(spec.crdNames(), ","),
		"timeScale":  strconv.FormatFloat(w.st.Scale, 'g', -1, 64),
	}
}

// namespaceKind names namespaces for the run's prefix.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// start starts the operator's process.
func (e *execs) start(ctx context.Context) error {
	if err := e.procs.StartWith(actorOperator, RoleOperator, e.w.processVars(), e.cmd.Command); err != nil {
		return err
	}
	e.w.recordProcess(ctx, timeline.VerbStart)
	return nil
}

// kill kills the operator's process, if it runs.
func (e *execs) kill(ctx context.Context) error {
	if !e.procs.Running(actorOperator) {
		return nil
	}
	err := e.procs.Kill(actorOperator)
	e.w.recordProcess(ctx, timeline.VerbKill)
	return err
}
