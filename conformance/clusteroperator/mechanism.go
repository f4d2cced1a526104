package clusteroperator

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/payload"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reference/cvo"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// The mechanism's name, as scenarios give it, and its seed.
const (
	Name = "clusteroperator"
	Seed = "001"
)

// The kinds the mechanism works on.
var (
	ClusterOperatorGVK = configv1.GroupVersion.WithKind("ClusterOperator")
	ClusterVersionGVK  = configv1.GroupVersion.WithKind("ClusterVersion")
	DeploymentGVK      = appsv1.SchemeGroupVersion.WithKind("Deployment")
	DaemonSetGVK       = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	PodGVK             = corev1.SchemeGroupVersion.WithKind("Pod")
	ConfigMapGVK       = corev1.SchemeGroupVersion.WithKind("ConfigMap")
)

// Roles of seed 001, and of the simulated workload controller.
const (
	RoleVersionOperator = "version-operator"
	RoleOperator        = rules.RoleOperator
	roleWorkload        = "workload"
)

// versionOperatorActor is the cluster-version operator's actor name.
const versionOperatorActor = "version-operator"

// OperatorActor is the actor name of a component's operator.
func OperatorActor(component string) string { return "operator/" + component }

// Mechanism returns seed 001's plug-in with cfg.
func Mechanism(cfg Config) conformance.Mechanism { return judgedWith(cfg.Rules()) }

// judgedWith is the mechanism whose rules judge with rc.
func judgedWith(rc rules.Config) *mechanism {
	return &mechanism{rc: rc, Tuned: conformance.Tune(rc, func(c rules.Config) conformance.Mechanism { return judgedWith(c) }),
		Declared: conformance.Declare(Name, Seed, []conformance.Role{
			{Name: RoleVersionOperator, Subjects: versionOperators, Cannot: versionOperatorCannot},
			{Name: RoleOperator, Subjects: operators, Forms: conformance.AllForms, Placeholders: placeholders},
		}, rules.Rules(rc), build)}
}

// mechanism is seed 001's plug-in, its rules judging with rc. It can be
// recorded and judged streaming, played on a cluster (deployments.go),
// and given what a real-time run needs: its rules' thresholds scaled with
// the run's time, a tolerance on their deadlines, and its reaction bound
// (--reaction-bound), scaled too: a scenario compressed to a few seconds
// would end before an unscaled 30s were due, and an operator told
// {timeScale} scales its requeue with it.
type mechanism struct {
	conformance.Declared
	conformance.Tuned[rules.Config, *rules.Config]
	rc rules.Config
}

func (m *mechanism) Estimate(sc *scenarios.Scenario) int { return estimate(sc) }

func (m *mechanism) Recording() *record.Recording { return recording() }

// Online is the contract, read as events pass (rules.Online).
func (m *mechanism) Online() []judge.Online { return []judge.Online{rules.Online(m.rc)} }

func (m *mechanism) Scaled(scale float64) conformance.Mechanism {
	c, seed := m.rc, rules.DefaultConfig()
	// Zero would mean the seed's figure: the least is a nanosecond.
	c.Significant = max(time.Duration(float64(cmp.Or(c.Significant, seed.Significant))*scale), 1)
	c.Stuck = max(time.Duration(float64(cmp.Or(c.Stuck, seed.Stuck))*scale), 1)
	c.Reaction = time.Duration(float64(c.Reaction) * scale)
	return judgedWith(c)
}

func (m *mechanism) Touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	return touches(sc, cast)
}

// ClusterKinds: the version operator's ClusterVersion, and the
// ClusterOperators of its payload's manifests.
func (m *mechanism) ClusterKinds() []schema.GroupKind {
	return []schema.GroupKind{ClusterVersionGVK.GroupKind(), ClusterOperatorGVK.GroupKind()}
}

// Namespaces: none; a scenario's create steps place objects only in the
// namespaces they create.
func (m *mechanism) Namespaces(*scenarios.Scenario) []string { return nil }

func (m *mechanism) Access(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	return access(sc, cast)
}

// versionOperatorCannot: the version operator is the platform's, played
// by opcert so that the component operators can be judged.
var versionOperatorCannot = conformance.NoForm("the version operator is the cluster's own (OpenShift's cluster-version operator), which opcert plays to judge the component operators: no team brings one")

// world is a scenario's running cluster.
type world struct {
	st      *conformance.Stage
	spec    *World
	subject any // the operator role's Subject.Impl (operator.go)
	version *versionOperator
	pods    *podWorld
	// play plays the operators whatever the form (package player); mu
	// keeps their starts and kills, by steps and by the launcher, apart,
	// and guards versions, the version each operator's process runs
	// (process mode). deploys is the rest of the world on a cluster
	// (deployments.go).
	play     *player.Player
	mu       sync.Mutex
	versions map[string]string
	deploys  *deploys
}

func build(ctx context.Context, st *conformance.Stage, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	if _, ok := cast[RoleVersionOperator].Impl.(versionOperatorImpl); !ok {
		return nil, fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleVersionOperator, cast[RoleVersionOperator].Impl)
	}
	w := &world{st: st, spec: scenarioWorld(sc), subject: cast[RoleOperator].Impl, versions: map[string]string{}}
	var err error
	switch w.subject.(type) {
	case operatorImpl, faithfulImpl, conformance.Reconciler:
		if st.Deployments != nil {
			// The cluster's controllers would run the operands opcert's
			// operators wrote, beside opcert's simulated pods.
			err = fmt.Errorf("%s: on a cluster the %s role is played by the team's Deployments: give --subject %s.%s=deployment:NAMESPACE/{name}-operator",
				Name, RoleOperator, Name, RoleOperator)
		}
	default:
		if !player.Takes(w.subject) {
			err = w.checkOperatorSubject()
		}
	}
	if err != nil {
		return nil, err
	}
	if w.play, err = player.New(ctx, st, w.subject, w.operatorSpec()); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	sched := st.Sched
	for gvk, paths := range recordedFields {
		if err := sched.RecordFields(gvk, paths...); err != nil {
			return nil, err
		}
	}
	p, err := releasePayload(w.spec, w.spec.Release)
	if err != nil {
		return nil, err
	}
	if err := w.startVersionOperator(ctx, p); err != nil {
		return nil, err
	}
	if w.play.Deployed() {
		return stepActions.On(w), nil // the cluster runs the pods, the team's Deployments the operators
	}
	if w.pods, err = startPods(ctx, st, w.spec); err != nil {
		return nil, err
	}
	if w.play.Executable() {
		return stepActions.On(w), w.launch(ctx)
	}
	for _, c := range w.spec.Components {
		if err := w.play.Start(ctx, c.Name); err != nil {
			return nil, err
		}
	}
	return stepActions.On(w), nil
}

// recordedFields are what the rules read beside conditions (the timeline
// contract in rules/doc.go).
var recordedFields = map[schema.GroupVersionKind][]string{
	ClusterOperatorGVK: {"status.versions"},
	ClusterVersionGVK:  {"status.desired", "status.history"},
	DeploymentGVK:      {"spec.template.metadata.labels", "spec.replicas", "status"},
	DaemonSetGVK:       {"spec.template.metadata.labels", "status"},
	PodGVK:             {"metadata.labels", "spec.nodeName", "status.phase"},
	ConfigMapGVK:       {"data"},
}

var versionRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: cvo.ClusterVersionName}}

func (w *world) startVersionOperator(ctx context.Context, p *payload.Payload) error {
	sched := w.st.Sched
	op, err := cvo.New(sched.Client(w.st.API, versionOperatorActor, RoleVersionOperator), sched.Clock(), versionParams(w.st), w.spec.Release, p)
	if err != nil {
		return err
	}
	if w.deploys != nil {
		op.Applier = w.deploys.apply
	}
	w.version = &versionOperator{op: op, c: sched.Client(w.st.API, versionOperatorActor, RoleVersionOperator), w: w.spec,
		release: w.spec.Release, payloads: map[string]*payload.Payload{w.spec.Release: p}}
	toVersion := func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{versionRequest} }
	return sched.Start(ctx, sim.Actor{Name: versionOperatorActor, Role: RoleVersionOperator, Reconciler: w.version,
		Watches: []sim.Watch{{GVK: ClusterOperatorGVK, Map: toVersion}, {GVK: ClusterVersionGVK, Name: cvo.ClusterVersionName}},
		Initial: []reconcile.Request{versionRequest}})
}

// versionParams are the version operator's thresholds as the run plays
// them: scaled with the scenario's times (--time-scale), like the world's
// pace and the rules' thresholds (conformance.Scalable.Scaled). Unscaled, its 40
// minutes to install outlast a compressed scenario, and an installation
// that never completes is never reported failing.
func versionParams(st *conformance.Stage) cvo.Params {
	p := cvo.DefaultParams()
	p.InstallTimeout, p.FailAfter, p.RetryAfter = st.Scaled(p.InstallTimeout), st.Scaled(p.FailAfter), st.Scaled(p.RetryAfter)
	return p
}

// startOperator starts a component's operator process. It does nothing
// until the version operator has applied its Deployment.
func (w *world) startOperator(ctx context.Context, c Component) error {
	sched := w.st.Sched
	actor := OperatorActor(c.Name)
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: c.Name}}
	mine := func(namespaces ...string) func(context.Context, client.Object) []reconcile.Request {
		return func(_ context.Context, obj client.Object) []reconcile.Request {
			for _, ns := range namespaces {
				if obj.GetNamespace() == ns {
					return []reconcile.Request{req}
				}
			}
			return nil
		}
	}
	op, err := w.operatorReconciler(sched.Client(w.st.API, actor, RoleOperator), c)
	if err != nil {
		return err
	}
	return sched.Start(ctx, sim.Actor{Name: actor, Role: RoleOperator, Reconciler: op,
		Watches: []sim.Watch{
			{GVK: ClusterOperatorGVK, Name: c.Name, Map: mine("")},
			{GVK: DeploymentGVK, Map: mine(c.Name, operatorNamespace(c.Name))},
			{GVK: DaemonSetGVK, Map: mine(c.Name)},
			{GVK: PodGVK, Map: mine(c.Name)},
			{GVK: ConfigMapGVK, Name: adminConfigMap(c.Name), Map: mine(c.Name)},
		},
		Initial: []reconcile.Request{req}, ReadsOthers: true})
}

// stepActions are clusteroperator's step actions (scenario.go names
// them), each with its value's type and what carries it out on the world.
// Killing an operator that is not running, or restarting one that is,
// kills it first or does nothing, as with the other mechanisms.
var stepActions = scenarios.Actions(
	scenarios.Act(actUpgrade, func(w *world, ctx context.Context, release string) error {
		scenario := w.scenario()
		cv := &configv1.ClusterVersion{}
		if err := scenario.Get(ctx, client.ObjectKey{Name: cvo.ClusterVersionName}, cv); err != nil {
			return fmt.Errorf("asking for release %s: %w", release, err)
		}
		cv.Spec.DesiredUpdate = &configv1.Update{Version: release}
		return scenario.Update(ctx, cv)
	}),
	scenarios.Act(actStick, func(w *world, ctx context.Context, s StickOperand) error {
		if w.pods == nil {
			return w.deploys.hold(ctx, s.Component, s.Operand) // on a cluster: held.go
		}
		return w.pods.stick(ctx, s.Component, s.Operand, s.Version)
	}),
	scenarios.Act(actHoldNode, func(w *world, ctx context.Context, node string) error {
		if w.pods == nil {
			return errNodes
		}
		return w.pods.holdNode(ctx, node)
	}),
	scenarios.Act(actBlock, func(w *world, ctx context.Context, b BlockUpgrade) error {
		return w.setBlocker(ctx, b.Component, b.Message)
	}),
	scenarios.Act(actUnblock, func(w *world, ctx context.Context, component string) error {
		return w.setBlocker(ctx, component, "")
	}),
	// The operator stays down, its Deployment's changes notwithstanding,
	// until restartOperator.
	scenarios.Act(actKill, func(w *world, ctx context.Context, component string) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.play.Kill(ctx, component)
	}),
	scenarios.Act(actRestart, func(w *world, ctx context.Context, component string) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.play.Restart(ctx, component)
	}),
)

// scenario is the world's client as the scenario's actor.
func (w *world) scenario() client.Client {
	return w.st.Sched.Client(w.st.API, timeline.RoleScenario, timeline.RoleScenario)
}

// setBlocker sets (an empty message: clears) what blocks a component's
// upgrade: through the team's Deployments on a cluster.
func (w *world) setBlocker(ctx context.Context, component, message string) error {
	if w.deploys != nil {
		return w.deploys.SetBlocker(ctx, component, message)
	}
	return setBlocker(ctx, w.scenario(), component, message)
}

// setBlocker writes the admin's blocker of a component ("" clears it).
func setBlocker(ctx context.Context, c client.Client, component, message string) error {
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: component, Name: adminConfigMap(component)}
	err := c.Get(ctx, key, cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
			Data: map[string]string{blockerKey: message}}
		return c.Create(ctx, cm)
	case err != nil:
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[blockerKey] = message
	return c.Update(ctx, cm)
}

// estimate is how many API calls a scenario costs on the reference: per
// component its manifests and the version operator's looks, then per pod
// of each rollout about 8 writes (the pod created, ready, the old one
// deleted, the workload's status, the operator's status), per release.
func estimate(sc *scenarios.Scenario) int {
	w := scenarioWorld(sc)
	rollouts := 1
	for _, st := range sc.Steps {
		if st.Action == actUpgrade {
			rollouts++
		}
	}
	n := 10
	for _, c := range w.Components {
		pods := 0
		for _, o := range c.Operands {
			if o.Kind == "DaemonSet" {
				pods += len(w.nodes())
			} else {
				pods += o.Replicas
			}
		}
		n += 10 + rollouts*(8*pods+6)
	}
	return n
}
