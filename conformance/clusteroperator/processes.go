package clusteroperator

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reference/component"
	"github.com/opcert/opcert/sim"
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

// namespaceKind names namespaces for the run's prefix.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// operatorSpec is what the player needs of the operator role: an
// instance per component, named by it.
func (w *world) operatorSpec() player.Spec {
	return player.Spec{Role: RoleOperator, Actor: OperatorActor, Vars: w.vars,
		Simulate: func(ctx context.Context, name string) error {
			c, _ := w.spec.component(name)
			return w.startOperator(ctx, c)
		},
		Process: player.Mode{Prepare: w.fixOperands, Feed: feedRecording(),
			Ready: func(ctx context.Context, name string) (bool, error) {
				_, applied, err := w.deployedVersion(ctx, name)
				return applied, err
			}},
		Cluster: w.clusterMode(),
	}
}

// fixOperands keeps the operands' names: the operator names them as on
// any cluster, and the namespace, which the run prefixes, keeps runs
// apart.
func (w *world) fixOperands(context.Context, *player.Player) error {
	for _, c := range w.spec.Components {
		for _, od := range c.Operands {
			w.st.Sched.FixNames(workloadGK(od), od.Name)
		}
	}
	return nil
}

// feedRecording is what the run must see of the processes' writes: their
// ClusterOperators, operands and ConfigMaps, with the fields the rules
// read. Pods and the ClusterVersion are written by the run's own actors
// only. A write no process made is no one's to judge.
func feedRecording() *record.Recording {
	return player.Recording(recordedFields, ClusterOperatorGVK, DeploymentGVK, DaemonSetGVK, ConfigMapGVK)
}

func workloadGK(od Operand) schema.GroupKind {
	if od.Kind == "DaemonSet" {
		return DaemonSetGVK.GroupKind()
	}
	return DeploymentGVK.GroupKind()
}

// launcher starts each component's operator process as its Deployment
// asks.
type launcher struct{ w *world }

// launch starts the launcher for the components' operator Deployments.
func (w *world) launch(ctx context.Context) error {
	byDeployment := map[types.NamespacedName]string{}
	for _, c := range w.spec.Components {
		byDeployment[types.NamespacedName{Namespace: operatorNamespace(c.Name), Name: operatorDeployment(c.Name)}] = c.Name
	}
	toComponent := func(_ context.Context, obj client.Object) []reconcile.Request {
		if c, ok := byDeployment[client.ObjectKeyFromObject(obj)]; ok {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: c}}}
		}
		return nil
	}
	return w.st.Sched.Start(ctx, sim.Actor{Name: launcherActor, Role: roleWorkload, Reconciler: launcher{w},
		Watches: []sim.Watch{{GVK: DeploymentGVK, Map: toComponent}}})
}

// Reconcile starts the component's operator at the version its
// Deployment asks, or replaces it when that version changes; one a step
// killed stays down (player.Player.Down).
func (l launcher) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := l.w
	w.mu.Lock()
	defer w.mu.Unlock()
	name := req.Name
	if w.play.Down(name) {
		return reconcile.Result{}, nil
	}
	v, applied, err := w.deployedVersion(ctx, name)
	if err != nil || !applied || w.play.Running(name) && w.versions[name] == v {
		return reconcile.Result{}, err
	}
	if err := w.play.Stop(ctx, name); err != nil {
		return reconcile.Result{}, err
	}
	if err := w.play.Start(ctx, name); err != nil {
		return reconcile.Result{}, fmt.Errorf("starting the operator of %s: %w", name, err)
	}
	return reconcile.Result{}, nil
}

// deployedVersion is the version the component's operator Deployment
// asks, and whether it is applied.
func (w *world) deployedVersion(ctx context.Context, name string) (string, bool, error) {
	c := w.st.Sched.Client(w.st.API, launcherActor, roleWorkload)
	return component.DeployedVersion(ctx, c, types.NamespacedName{Namespace: operatorNamespace(name), Name: operatorDeployment(name)})
}

// placeholders are the keys of vars, which an operator's command may use
// (conformance.Role.Placeholders).
var placeholders = []string{"name", "namespace", "operatorNamespace", "version", "operands", "nodes", "readyAfter", "timeScale"}

// vars are the placeholders of component name's process, at the version
// its Deployment asks, which it remembers as the one the process runs
// (w.mu held).
func (w *world) vars(ctx context.Context, name string) (map[string]string, error) {
	v, _, err := w.deployedVersion(ctx, name)
	if err != nil {
		return nil, err
	}
	w.versions[name] = v
	c, _ := w.spec.component(name)
	return w.placeholders(c, v), nil
}

// placeholders are those of component c's process at version v.
func (w *world) placeholders(c Component, v string) map[string]string {
	sched := w.st.Sched
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
		"nodes":             strings.Join(w.spec.nodes(), ","),
		"readyAfter":        w.st.Scaled(c.readyAfter()).String(),
		"timeScale":         strconv.FormatFloat(w.st.Scale, 'g', -1, 64),
	}
}
