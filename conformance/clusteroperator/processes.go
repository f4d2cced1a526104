package clusteroperator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reference/component"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode: a team's operator binary plays each component's operator
// (opcert run --subject clusteroperator.operator=exec:'./bin/manager ...'),
// in real time, against opcert's API server.
//
//   - A process per component, started once the version operator has
//     applied the component's operator Deployment ("<X>-operator" in
//     namespace "<X>-operator"), at the version its pod template asks
//     (label opcert.io/version). A new version there replaces the process
//     with one of the new version, as a Deployment rollout replaces its
//     pod: kill, then start. The launcher is an actor of the run watching
//     those Deployments; it writes nothing.
//   - Its command's placeholders, also set as OPCERT_<KEY> in its
//     environment: {name} its ClusterOperator as the API server holds it
//     (with the run's prefix, r01-etcd), {namespace} its operands'
//     namespace and {operatorNamespace} its own (prefixed too: the run
//     created them), {version} the version it runs, {operands} what it
//     rolls out ("Deployment/server=3,DaemonSet/agent": kind, name,
//     replicas), {nodes} the nodes a DaemonSet runs on (comma separated),
//     {readyAfter} the pace of its operands' pods (scaled: an operator may
//     pass it on as the workload's opcert.io/ready-after annotation), and
//     {timeScale} the run's time scale (an operator may scale its own
//     thresholds by it, such as how long a rollout may stall before it
//     reports Degraded). {role} is "operator".
//   - Names: inside its namespaces the operator's objects keep the
//     scenario's names (the operands, as the operator names them on any
//     cluster); only cluster-scoped names and the namespaces carry the
//     run's prefix, and what the world names after the component follows
//     {name}: the admin's ConfigMap is "{name}-admin" in {namespace}, the
//     operator's Deployment "{name}-operator" in {operatorNamespace}.
//   - Its writes reach the run through conformance.Feed (ClusterOperators, the
//     workloads, ConfigMaps, with the fields the rules read), each put down
//     by the API server's audit to the process whose user made it (actor
//     "operator/X", role operator); the writes to its operands wake the
//     workload controller, which plays their pods as in virtual time.
//   - killOperator is SIGKILL to its process group; the operator then
//     stays down, its Deployment's changes notwithstanding, until
//     restartOperator starts it again at the version its Deployment asks
//     (or, before the Deployment is applied, lets the launcher start it
//     then), as in virtual time. Both are process events on the timeline,
//     so the rules do not judge what the operator missed while down.
//   - Time: scenario times are scaled (Stage.At), the world's pace too
//     (a pod's 30s to get ready), and so are the rules' thresholds (the
//     2s of a significant rollout, the 10m of a stalled one), judged with
//     conformance.RealtimeTolerance.

// launcherActor is the actor that starts the operators' processes as
// their Deployments ask.
const launcherActor = "operator-launcher"

// execs runs the component operators as processes.
type execs struct {
	w     *world
	cmd   conformance.Process
	procs *conformance.Processes

	mu  sync.Mutex
	ops map[string]*execOp // by component
}

// execOp is what the launcher knows of a component's operator process.
type execOp struct {
	version string // the version its running process runs
	down    bool   // killed by a step: started again only by restartOperator
}

// namespaceKind names namespaces for the run's prefix.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}

func newExecs(ctx context.Context, w *world, cmd conformance.Process) (*execs, error) {
	st := w.st
	if st.Processes == nil || !st.Sched.Realtime() {
		return nil, errors.New(Name + ": an operator that is an executable needs a real-time run on opcert's own API server (process mode)")
	}
	// The operator names its operands as on any cluster: the namespace,
	// which the run prefixes, keeps runs apart.
	for _, c := range w.spec.Components {
		for _, od := range c.Operands {
			st.Sched.FixNames(workloadGK(od), od.Name)
		}
	}
	if err := conformance.Feed(ctx, st, feedRecording(), st.Processes.Attribute); err != nil {
		return nil, err
	}
	return &execs{w: w, cmd: cmd, procs: st.Processes, ops: map[string]*execOp{}}, nil
}

// feedRecording is what the run must see of the processes' writes: their
// ClusterOperators, operands and ConfigMaps, with the fields the rules
// read. Pods and the ClusterVersion are written by the run's own actors
// only. A write no process made is no one's to judge.
func feedRecording() *record.Recording {
	kinds := []schema.GroupVersionKind{ClusterOperatorGVK, DeploymentGVK, DaemonSetGVK, ConfigMapGVK}
	fields := map[schema.GroupVersionKind][]string{}
	for _, k := range kinds {
		fields[k] = recordedFields[k]
	}
	return &record.Recording{Kinds: kinds, Fields: fields, Role: func(string) string { return "" }}
}

func workloadGK(od Operand) schema.GroupKind {
	if od.Kind == "DaemonSet" {
		return DaemonSetGVK.GroupKind()
	}
	return DeploymentGVK.GroupKind()
}

// launch starts the launcher for the components' operator Deployments.
func (e *execs) launch(ctx context.Context) error {
	byDeployment := map[types.NamespacedName]string{}
	for _, c := range e.w.spec.Components {
		e.ops[c.Name] = &execOp{}
		byDeployment[types.NamespacedName{Namespace: operatorNamespace(c.Name), Name: operatorDeployment(c.Name)}] = c.Name
	}
	toComponent := func(_ context.Context, obj client.Object) []reconcile.Request {
		if c, ok := byDeployment[client.ObjectKeyFromObject(obj)]; ok {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: c}}}
		}
		return nil
	}
	return e.w.st.Sched.Start(ctx, sim.Actor{Name: launcherActor, Role: roleWorkload, Reconciler: e,
		Watches: []sim.Watch{{GVK: DeploymentGVK, Map: toComponent}}})
}

// Reconcile starts the component's operator at the version its
// Deployment asks, or replaces it when that version changes.
func (e *execs) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	name := req.Name
	op := e.ops[name]
	if op == nil || op.down {
		return reconcile.Result{}, nil
	}
	v, applied, err := e.deployedVersion(ctx, name)
	if err != nil || !applied {
		return reconcile.Result{}, err
	}
	if e.procs.Running(OperatorActor(name)) {
		if op.version == v {
			return reconcile.Result{}, nil
		}
		if err := e.kill(ctx, name); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, e.start(ctx, name, v)
}

// deployedVersion is the version the component's operator Deployment
// asks, and whether it is applied.
func (e *execs) deployedVersion(ctx context.Context, name string) (string, bool, error) {
	c := e.w.st.Sched.Client(e.w.st.API, launcherActor, roleWorkload)
	return component.DeployedVersion(ctx, c, types.NamespacedName{Namespace: operatorNamespace(name), Name: operatorDeployment(name)})
}

// start starts the component's process at version v (e.mu held).
func (e *execs) start(ctx context.Context, name, v string) error {
	c, _ := e.w.spec.component(name)
	if err := e.procs.StartWith(OperatorActor(name), RoleOperator, e.vars(c, v), e.cmd.Command); err != nil {
		return fmt.Errorf("starting the operator of %s: %w", name, err)
	}
	e.ops[name].version = v
	e.record(ctx, name, timeline.VerbStart)
	return nil
}

// kill kills the component's process (e.mu held).
func (e *execs) kill(ctx context.Context, name string) error {
	err := e.procs.Kill(OperatorActor(name))
	e.ops[name].version = ""
	e.record(ctx, name, timeline.VerbKill)
	return err
}

// placeholders are the keys of vars, which an operator's command may use
// (conformance.Role.Placeholders).
var placeholders = []string{"name", "namespace", "operatorNamespace", "version", "operands", "nodes", "readyAfter", "timeScale"}

// vars are the placeholders of component c's process at version v.
func (e *execs) vars(c Component, v string) map[string]string {
	sched := e.w.st.Sched
	operands := make([]string, 0, len(c.Operands))
	for _, od := range c.Operands {
		s := od.Kind + "/" + od.Name
		if od.Kind != "DaemonSet" {
			s += "=" + strconv.Itoa(od.Replicas)
		}
		operands = append(operands, s)
	}
	return map[string]string{
		"name":              sched.ServerName(ClusterOperatorGVK.GroupKind(), c.Name),
		"namespace":         sched.ServerName(namespaceKind, c.Name),
		"operatorNamespace": sched.ServerName(namespaceKind, operatorNamespace(c.Name)),
		"version":           v,
		"operands":          strings.Join(operands, ","),
		"nodes":             strings.Join(e.w.spec.nodes(), ","),
		"readyAfter":        e.w.st.Scaled(c.readyAfter()).String(),
		"timeScale":         strconv.FormatFloat(e.w.st.Scale, 'g', -1, 64),
	}
}

// Kill is the killOperator step: the process dies and stays down.
func (e *execs) Kill(ctx context.Context, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ops[name].down = true
	if !e.procs.Running(OperatorActor(name)) {
		return nil
	}
	return e.kill(ctx, name)
}

// Restart is the restartOperator step: a new process at the version the
// Deployment asks, or none until the Deployment is applied.
func (e *execs) Restart(ctx context.Context, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ops[name].down = false
	if e.procs.Running(OperatorActor(name)) {
		if err := e.kill(ctx, name); err != nil {
			return err
		}
	}
	v, applied, err := e.deployedVersion(ctx, name)
	if err != nil || !applied {
		return err
	}
	return e.start(ctx, name, v)
}

// record puts a start or kill of a component's process on the timeline:
// the rules do not judge the operator while it is down.
func (e *execs) record(ctx context.Context, name, verb string) {
	actor := OperatorActor(name)
	e.w.st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: RoleOperator, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
}

// scalable gives m what a real-time run needs: its rules' thresholds
// scaled with the run's time (Mechanism.Scaled) and a tolerance on their
// deadlines (Mechanism.WithTolerance); and its reaction bound
// (Mechanism.Reaction, WithReaction: --reaction-bound), scaled too: a
// scenario compressed to a few seconds would end before an unscaled 30s
// were due, and an operator told {timeScale} scales its requeue with it.
func scalable(m *conformance.Mechanism, rc rules.Config) *conformance.Mechanism {
	with := func(c rules.Config) *conformance.Mechanism {
		t := *m
		t.Rules = rules.Rules(c)
		return scalable(&t, c)
	}
	m.Reaction = rc.Reaction
	m.WithReaction = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Reaction = d
		return with(c)
	}
	m.Scaled = func(scale float64) *conformance.Mechanism {
		c, seed := rc, rules.DefaultConfig()
		// Zero would mean the seed's figure: the least is a nanosecond.
		c.Significant = max(time.Duration(float64(cmp.Or(c.Significant, seed.Significant))*scale), 1)
		c.Stuck = max(time.Duration(float64(cmp.Or(c.Stuck, seed.Stuck))*scale), 1)
		c.Reaction = time.Duration(float64(c.Reaction) * scale)
		return with(c)
	}
	m.WithTolerance = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Tolerance = max(c.Tolerance, d)
		return with(c)
	}
	return m
}
