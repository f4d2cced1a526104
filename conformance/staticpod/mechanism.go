// Package staticpod plugs seed 003 (fallback on failing revisions of
// static pods) into the harness: its roles (startup-monitor, installer,
// operator, pruner), the reference and broken subjects for each, the
// STATICPOD rules (conformance/staticpod/rules), its scenario kind and
// built-ins, and the world a scenario builds: per node a simulated file
// system (sim/node) with a kubelet that runs the manifests and keeps the
// mirror pod, the operand's endpoints, and the seed's processes, plus the
// operator that writes the ClusterOperator. The startup-monitor, the
// installer and the pruner are also played by a team's binary (process
// mode, processes.go, commands.go): the node stays simulated and the
// process is given its directories and the operand's endpoints as
// placeholders, a decision README.md ("Process mode") argues against a
// mount namespace per node; no role is played by a Deployment, whose pods
// cannot see a simulated node. README.md in this directory tells the
// decisions.
package staticpod

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod/rules"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/node"
	"github.com/opcert/opcert/sim/timeline"
)

// The mechanism's name, as scenarios give it, and its seed.
const (
	Name = "staticpod"
	Seed = "003"
)

// The kinds the mechanism works on.
var (
	ClusterOperatorGVK = configv1.GroupVersion.WithKind("ClusterOperator")
	PodGVK             = corev1.SchemeGroupVersion.WithKind("Pod")
	podGK              = schema.GroupKind{Kind: "Pod"}
)

// Mechanism returns seed 003's plug-in with cfg's timeout and profile.
func Mechanism(cfg Config) conformance.Mechanism {
	return &mechanism{cfg: cfg, Tuned: conformance.Tune(cfg, Mechanism),
		Declared: conformance.Declare(Name, Seed, []conformance.Role{
			// A team's Go core plays every role in library mode
			// (library.go); a team's startup-monitor binary plays in
			// process mode (processes.go); on a cluster it cannot
			// (clusterCannot).
			conformance.Role{Name: RoleStartupMonitor, Subjects: monitors, Placeholders: monitorPlaceholders}.Except(monitorCannot),
			// A team's installer or pruner is also a command run once per
			// piece of work (commands.go).
			conformance.Role{Name: RoleInstaller, Subjects: installers, Placeholders: installerPlaceholders}.Except(nodeRoleCannot),
			conformance.Role{Name: RoleOperator, Subjects: operators}.Except(operatorCannot),
			conformance.Role{Name: RolePruner, Subjects: pruners, Placeholders: prunerPlaceholders}.Except(nodeRoleCannot),
		}, rules.Rules(cfg.Rules()), conformance.With(cfg, build))}
}

// mechanism is seed 003's plug-in with cfg. It can be recorded (what the
// API server holds of it: recording.go) and judged streaming, and given
// what a real-time run (a startup-monitor that is an executable) needs:
// the scenario's times scaled, and the rules the real-time tolerance. It
// cannot be played on a cluster (its nodes are simulated: clusterCannot).
type mechanism struct {
	conformance.Declared
	conformance.Tuned[Config, *Config]
	cfg Config
}

func (m *mechanism) Estimate(sc *scenarios.Scenario) int { return m.cfg.Estimate(sc) }

func (m *mechanism) Recording() *record.Recording { return recording() }

// Online are the facts, read as events pass (rules.Config.Online).
func (m *mechanism) Online() []judge.Online { return []judge.Online{m.cfg.Rules().Online()} }

func (m *mechanism) Scaled(scale float64) conformance.Mechanism {
	c := m.cfg
	c.Scale = scale
	if m.cfg.Scale != 0 {
		c.Scale *= m.cfg.Scale
	}
	c.Timeout = time.Duration(float64(c.Timeout) * scale)
	c.Reaction = time.Duration(float64(c.Reaction) * scale)
	return Mechanism(c)
}

// The operator's inputs are not all API objects here: the revision it
// rolls out is a scenario step, and the installers take its asks from it
// inside opcert.
const operatorProcess = "the revision the operator rolls out is the scenario's rollout step, handed to opcert's operator inside the world (no API object holds it), and the nodes' installers take its asks from it there: a process could read the mirror pods and write its ClusterOperator, but would never learn what to roll out nor have its asks installed"

var (
	monitorCannot  = map[conformance.Form]string{conformance.FormCluster: clusterCannot}
	nodeRoleCannot = map[conformance.Form]string{
		conformance.FormCluster: "a simulated node's files cannot be on a real cluster: this role works on the node's files",
	}
	operatorCannot = map[conformance.Form]string{
		conformance.FormProcess: operatorProcess,
		conformance.FormCluster: "the nodes the operator reads are simulated (their files, kubelet and operand): a Deployment on a real cluster would see the cluster's nodes, not the scenario's",
	}
)

// Actor names (the timeline contract).
func nodeActor(role, node string) string { return role + "/" + node }

const operatorActor = "operator"

// roleOf is the role of an actor named "<role>/<node>", or the actor's
// own name ("operator", "scenario").
func roleOf(actor string) string {
	for i := range len(actor) {
		if actor[i] == '/' {
			return actor[:i]
		}
	}
	return actor
}

// request is what a node actor reconciles: one per role and node, so that
// the actors' work at one instant runs in a fixed order (by key: the
// installer, the kubelet, the operand, the pruner, the startup-monitor).
func request(role, node string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: node, Name: role}}
}

// operatorRequest is the operator's work, named for its ClusterOperator in
// the operator's namespace.
var operatorRequest = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: operatorNamespace, Name: operandName}}

const operatorNamespace = "openshift-kube-apiserver-operator"

// cluster is a scenario's running world.
type cluster struct {
	st        *conformance.Stage
	cfg       Config
	spec      *World
	monitor   monitorCore
	installer installerCore
	operator  operatorCore
	pruner    prunerCore
	hosts     []*host
	// procs plays one role of the nodes as processes (process mode); nil
	// when opcert's subjects play them all.
	procs *nodeProcs
	// installerWrite and monitorWrite are how long each timed write takes.
	installerWrite, monitorWrite time.Duration

	etcdDown atomic.Bool // read by the endpoint servers' goroutines
	closed   atomic.Bool
	// unhook stops close from running when the run's context ends.
	unhook func() bool

	mu     sync.Mutex
	target int // the revision the operator rolls out
}

// played is the implementation of role in cast as this mechanism's own
// type T: a role is played by its own subjects or a team's core (library
// mode, teamImpl), not by a Deployment (clusterCannot); build takes an
// executable for the startup-monitor before it asks.
func played[T any](cast conformance.Cast, role string) (T, error) {
	own, err := teamImpl(role, cast[role].Impl)
	impl, ok := own.(T)
	if err != nil {
		return impl, err
	}
	if _, deployed := cast[role].Impl.(conformance.Deployment); deployed {
		return impl, fmt.Errorf("%s: the %s role: %s", Name, role, clusterCannot)
	}
	if !ok {
		return impl, fmt.Errorf("%s: the %s role cannot be played by %T", Name, role, cast[role].Impl)
	}
	return impl, nil
}

func build(ctx context.Context, st *conformance.Stage, cfg Config, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	exe, proc, err := executable(cast)
	if err != nil {
		return nil, err
	}
	// A role an executable plays has no core: the process decides.
	mon, err := playedUnless(cast, RoleStartupMonitor, exe, monitorImpl(func(Config) monitorCore { return monitorCore{} }))
	if err != nil {
		return nil, err
	}
	ins, err := playedUnless(cast, RoleInstaller, exe, installerImpl(func(Config) installerCore { return installerCore{} }))
	if err != nil {
		return nil, err
	}
	op, err := played[operatorImpl](cast, RoleOperator)
	if err != nil {
		return nil, err
	}
	pr, err := playedUnless(cast, RolePruner, exe, prunerImpl(func(Config) prunerCore { return prunerCore{} }))
	if err != nil {
		return nil, err
	}
	spec := scenarioWorld(sc)
	c := &cluster{
		st: st, cfg: cfg, spec: spec,
		monitor:   mon(cfg),
		installer: ins(cfg),
		operator:  scaledOperator(op(cfg), cfg),
		pruner:    pr(cfg),
		target:    spec.Installed,
		unhook:    func() bool { return false },
	}
	c.installerWrite, c.monitorWrite = spec.writeTimes()
	c.installerWrite, c.monitorWrite = st.Scaled(c.installerWrite), st.Scaled(c.monitorWrite)
	if exe != "" {
		if c.procs, err = newNodeProcs(c, sc, exe, proc); err != nil {
			return nil, err
		}
	}
	sched := st.Sched
	var names []string
	for _, n := range spec.NodeNames() {
		names = append(names, mirrorName(n))
	}
	sched.FixNames(podGK, names...) // the kubelet names mirror pods
	for _, gvk := range recordedKinds {
		if err := sched.RecordFields(gvk, recordedFields[gvk]...); err != nil {
			return nil, err
		}
	}
	setup := sched.Client(st.API, timeline.RoleScenario, timeline.RoleScenario)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mirrorNamespace}}
	if err := setup.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s: %w", mirrorNamespace, err)
	}
	// The nodes' directories and endpoint servers go at the run's end, or
	// when it is stopped.
	end := st.At(sc.Duration.Duration)
	sched.At(end, func(context.Context) error { return c.close() })
	ok := false
	defer func() {
		if !ok {
			_ = c.close()
		}
	}()
	for _, name := range spec.NodeNames() {
		h, err := newHost(c, name)
		if err != nil {
			return nil, err
		}
		c.hosts = append(c.hosts, h)
	}
	if c.procs != nil {
		for _, h := range c.hosts {
			if err := c.procs.track(h); err != nil {
				return nil, err
			}
		}
		st.Go(c.procs.poll)
	}
	c.unhook = context.AfterFunc(ctx, func() { _ = c.close() })
	for _, h := range c.hosts {
		if err := h.layout(ctx); err != nil {
			return nil, fmt.Errorf("node %s: laying out its files: %w", h.name, err)
		}
	}
	if err := c.startOperator(ctx); err != nil {
		return nil, err
	}
	for _, h := range c.hosts {
		if err := h.start(ctx); err != nil {
			return nil, err
		}
	}
	if l := spec.Linked(); l > 0 {
		// After the processes' first look at time 0, in which the kubelet
		// shows the installed operand ready: the link is then earned. (In
		// real time their first look is queued at the wall clock's now,
		// after the origin.)
		sched.At(sched.Now(), func(ctx context.Context) error {
			for _, h := range c.hosts {
				if err := h.as(ctx, timeline.RoleScenario).Symlink(node.RevisionDir(operandName, l), node.LastKnownGood); err != nil {
					return fmt.Errorf("node %s: linking last-known-good: %w", h.name, err)
				}
			}
			return nil
		})
	}
	ok = true
	return stepActions.On(c), nil
}

// scaledOperator is an operator core with its back-off at the run's time
// scale (a decision core of its own keeps its times).
func scaledOperator(core operatorCore, cfg Config) operatorCore {
	core.params.Backoff.First, core.params.Backoff.Max = cfg.scaled(core.params.Backoff.First), cfg.scaled(core.params.Backoff.Max)
	return core
}

// close removes the nodes' directories and stops their endpoints, once.
// Work still queued at the run's last instant then finds the world closed
// and does nothing.
func (c *cluster) close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.unhook()
	var errs []error
	for _, h := range c.hosts {
		errs = append(errs, h.close())
	}
	return errors.Join(errs...)
}

func (c *cluster) host(name string) (*host, error) {
	for _, h := range c.hosts {
		if h.name == name {
			return h, nil
		}
	}
	return nil, fmt.Errorf("no node %q in this scenario", name)
}

func (c *cluster) getTarget() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.target
}

func (c *cluster) startOperator(ctx context.Context) error {
	op := newOperator(c)
	return c.st.Sched.Start(ctx, sim.Actor{Name: operatorActor, Role: RoleOperator, Reconciler: op,
		Watches: []sim.Watch{{GVK: PodGVK, Map: func(_ context.Context, obj client.Object) []reconcile.Request {
			if obj.GetNamespace() != mirrorNamespace {
				return nil
			}
			return []reconcile.Request{operatorRequest}
		}}},
		Initial: []reconcile.Request{operatorRequest}, ReadsOthers: true})
}

// stepActions are staticpod's step actions (scenario.go names them), each
// with its value's type and what carries it out on the cluster. An action
// on a process already in the state asked for does nothing.
var stepActions = scenarios.Actions(
	scenarios.Act(actRollout, func(c *cluster, _ context.Context, r Rollout) error {
		c.mu.Lock()
		c.target = r.Revision
		c.mu.Unlock()
		sched := c.st.Sched
		sched.Enqueue(operatorActor, operatorRequest, sched.Now())
		return nil
	}),
	scenarios.Act(actKillMonitor, onNode((*host).killMonitor)),
	scenarios.Act(actRestartMonitor, onNode((*host).restartMonitor)),
	scenarios.Act(actKillInstaller, onNode(func(h *host, ctx context.Context) error { return h.kill(ctx, RoleInstaller) })),
	scenarios.Act(actRestartInstaller, onNode(func(h *host, ctx context.Context) error {
		if err := h.kill(ctx, RoleInstaller); err != nil {
			return err
		}
		return h.startInstaller(ctx)
	})),
	scenarios.Act(actKillPruner, onNode(func(h *host, ctx context.Context) error { return h.kill(ctx, RolePruner) })),
	scenarios.Act(actRestartPruner, onNode(func(h *host, ctx context.Context) error {
		if err := h.kill(ctx, RolePruner); err != nil {
			return err
		}
		return h.startPruner(ctx)
	})),
	scenarios.Act(actKillOperator, func(c *cluster, ctx context.Context, _ string) error { return c.killOperator(ctx) }),
	scenarios.Act(actRestartOperator, func(c *cluster, ctx context.Context, _ string) error {
		if err := c.killOperator(ctx); err != nil {
			return err
		}
		return c.startOperator(ctx)
	}),
	scenarios.Act(actHangOperator, func(c *cluster, ctx context.Context, _ string) error { return c.cutOperator(ctx, true) }),
	scenarios.Act(actReconnect, func(c *cluster, ctx context.Context, _ string) error { return c.cutOperator(ctx, false) }),
	scenarios.Act(actEtcd, func(c *cluster, _ context.Context, e Etcd) error {
		c.etcdDown.Store(e.Down)
		sched := c.st.Sched
		for _, h := range c.hosts {
			for _, role := range []string{RoleKubelet, RoleOperand} {
				sched.Enqueue(nodeActor(role, h.name), request(role, h.name), sched.Now())
			}
		}
		return nil
	}),
)

// onNode is an action on a process of the node its value names.
func onNode(do func(h *host, ctx context.Context) error) func(*cluster, context.Context, string) error {
	return func(c *cluster, ctx context.Context, node string) error {
		h, err := c.host(node)
		if err != nil {
			return err
		}
		return do(h, ctx)
	}
}

// killOperator kills the operator if it runs.
func (c *cluster) killOperator(ctx context.Context) error {
	if !c.st.Sched.Running(operatorActor) {
		return nil
	}
	return c.st.Sched.Kill(ctx, operatorActor)
}

// cutOperator cuts the running operator off the API server (hangs it), or
// reconnects it.
func (c *cluster) cutOperator(ctx context.Context, cut bool) error {
	if !c.st.Sched.Running(operatorActor) {
		return nil
	}
	return c.st.Sched.Partition(ctx, operatorActor, cut)
}

// after is a reconcile result that comes back at t (none if t is zero or
// not after now).
func after(now, t time.Time) reconcile.Result {
	if t.IsZero() || !t.After(now) {
		return reconcile.Result{}
	}
	return reconcile.Result{RequeueAfter: t.Sub(now)}
}

// earliest is the earliest of the non-zero instants, zero if none.
func earliest(ts ...time.Time) time.Time {
	ts = slices.DeleteFunc(ts, time.Time.IsZero)
	if len(ts) == 0 {
		return time.Time{}
	}
	return slices.MinFunc(ts, time.Time.Compare)
}
