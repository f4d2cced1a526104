package stackable

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/conformance/stackable/faithful"
	"github.com/opcert/opcert/conformance/stackable/rules"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
	ref "github.com/opcert/opcert/reference/stackable"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/workload"
)

// The mechanism's name, as scenarios give it, and its seed.
const (
	Name = "stackable"
	Seed = "004"
)

// The kinds the mechanism works on.
var (
	SampleClusterGVK = ref.SampleClusterGVK
	PodGVK           = corev1.SchemeGroupVersion.WithKind("Pod")
	workloadGVKs     = []schema.GroupVersionKind{
		appsv1.SchemeGroupVersion.WithKind("StatefulSet"),
		appsv1.SchemeGroupVersion.WithKind("Deployment"),
		appsv1.SchemeGroupVersion.WithKind("DaemonSet"),
	}
)

// RoleOperator is seed 004's one role; actorOperator its actor.
const (
	RoleOperator  = rules.RoleOperator
	actorOperator = "operator"
)

// Mechanism returns seed 004's plug-in with cfg.
func Mechanism(cfg Config) conformance.Mechanism { return MechanismRecording(cfg, nil) }

// MechanismRecording is Mechanism whose recordings of a live cluster put
// the writes of operatorManagers, field managers, down to the operator
// (recording.go).
func MechanismRecording(cfg Config, operatorManagers []string) conformance.Mechanism {
	return &mechanism{Declared: conformance.Declare(Name, Seed, []conformance.Role{{Name: RoleOperator, Subjects: operators, Placeholders: placeholders,
		Forms: conformance.AllForms}}, rules.Rules(cfg), build), rc: cfg, operatorManagers: operatorManagers,
		Tuned: conformance.Tune(cfg, func(c Config) conformance.Mechanism { return MechanismRecording(c, operatorManagers) })}
}

// mechanism is seed 004's plug-in, its rules judging with rc, its
// recordings putting the writes of operatorManagers down to the operator.
// It can be recorded and judged streaming (the rules' reader, judging
// with rc), played on a cluster (deployments.go), and given what a
// real-time run needs: its times scaled with the run's, a tolerance on
// when the operator must reflect a change (rules.Config.Tolerance) and
// the reaction bound the rules judge with (--reaction-bound:
// rules.Config.Reaction).
type mechanism struct {
	conformance.Declared
	conformance.Tuned[Config, *Config]
	rc               Config
	operatorManagers []string
}

func (m *mechanism) Estimate(sc *scenarios.Scenario) int { return estimate(sc) }

func (m *mechanism) Recording() *record.Recording { return recording(m.operatorManagers) }

func (m *mechanism) Online() []judge.Online { return []judge.Online{rules.Online(m.rc)} }

// Scaled: the bound is a requeue of the scenario's world, which a
// time-scaled run plays faster: scaled with it, it still judges the
// states the run holds (unscaled, 30s would outlast a built-in at 0.03);
// the least is a nanosecond, zero meaning "at the instant". The
// scenario's times are the stage's.
func (m *mechanism) Scaled(scale float64) conformance.Mechanism {
	c := m.rc
	if c.Reaction > 0 {
		c.Reaction = max(time.Duration(float64(c.Reaction)*scale), 1)
	}
	return MechanismRecording(c, m.operatorManagers)
}

func (m *mechanism) Touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	return touches(sc, cast)
}

// ClusterKinds: its namespaces only, which need no entry: its
// SampleClusters are in them.
func (m *mechanism) ClusterKinds() []schema.GroupKind { return []schema.GroupKind{} }

func (m *mechanism) Namespaces(sc *scenarios.Scenario) []string {
	return scenarioWorld(sc).namespaces()
}

func (m *mechanism) Access(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	return access(sc, cast)
}

// recordedFields are what the rules read beside conditions (the timeline
// contract in rules/doc.go), in virtual and in real time alike.
var recordedFields = func() map[schema.GroupVersionKind][]string {
	out := map[schema.GroupVersionKind][]string{
		SampleClusterGVK: {"metadata.annotations", "spec", "status.conditions"},
		PodGVK:           {"metadata.labels", "status.phase", "spec.nodeName"},
	}
	for _, gvk := range workloadGVKs {
		out[gvk] = []string{"spec.replicas", "spec.template.metadata.labels", "status"}
	}
	return out
}()

// world is a scenario's running cluster.
type world struct {
	st      *conformance.Stage
	spec    *World
	subject operatorImpl
	// play plays the operator whatever the form (package player); with
	// a Deployment (cluster mode) the cluster runs the pods (pods is nil).
	play *player.Player
	// team is a team's reconciler in the operator role (library mode,
	// library.go), nil otherwise.
	team *conformance.Reconciler
	pods *workload.Controller
	// clusterPods makes the pod faults on a cluster's pods, when pods is nil.
	clusterPods *clusterPods
	user        *sim.Client
	clusters    map[string]Cluster // by name, what the scenario declared
}

func build(ctx context.Context, st *conformance.Stage, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	sched := st.Sched
	w := &world{st: st, spec: scenarioWorld(sc),
		user: sched.Client(st.API, "scenario", "scenario"), clusters: map[string]Cluster{}}
	var err error
	switch impl := cast[RoleOperator].Impl.(type) {
	case operatorImpl, conformance.Reconciler:
		if st.Deployments != nil {
			// The cluster's controllers would run the workloads the
			// operator writes: an operator in opcert's process has no
			// place there.
			err = fmt.Errorf("%s: on a cluster the %s role is played by the team's Deployment: give --subject %s.%s=deployment:NAMESPACE/NAME",
				Name, RoleOperator, Name, RoleOperator)
		}
		if r, ok := impl.(conformance.Reconciler); ok {
			w.team = &r
		} else {
			w.subject = impl.(operatorImpl)
		}
	default:
		if !player.Takes(impl) {
			err = fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleOperator, impl)
		}
	}
	if err != nil {
		return nil, err
	}
	if w.play, err = player.New(ctx, st, cast[RoleOperator].Impl, w.operatorSpec()); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	for gvk, paths := range recordedFields {
		if err := sched.RecordFields(gvk, paths...); err != nil {
			return nil, err
		}
	}
	if err := w.setUp(ctx); err != nil {
		return nil, err
	}
	if w.play.Deployed() {
		w.clusterPods = &clusterPods{w: w, failed: map[PodRef]types.NamespacedName{}}
		if w.spec.Load != nil {
			w.queueLoad(sc.Duration.Duration, w.clusterPods.loadFaults())
		}
		return stepActions.On(w), w.play.Start(ctx, actorOperator) // the cluster runs the pods
	}
	w.pods = workload.New(workload.Options{Scheduler: sched, API: st.API, Namespaces: w.spec.namespaces(),
		Nodes: w.spec.nodes(), ReadyAfter: st.Scaled(w.spec.readyAfter())})
	if err := sched.Start(ctx, w.pods.Actor()); err != nil {
		return nil, err
	}
	if err := w.play.Start(ctx, actorOperator); err != nil {
		return nil, err
	}
	if w.spec.Load != nil {
		w.queueLoad(sc.Duration.Duration, podFaults{fail: w.pods.FailPod, lose: w.pods.LosePod, recover: w.pods.RecoverPod})
	}
	return stepActions.On(w), nil
}

// startOperator starts the operator role's subject in the scheduler, a
// new process (player.Spec.Simulate).
func (w *world) startOperator(ctx context.Context) error {
	sched := w.st.Sched
	c := sched.Client(w.st.API, actorOperator, RoleOperator)
	var op operator
	var err error
	switch v := w.subject.faithful; {
	case w.team != nil:
		op, err = w.newTeamOperator(c, *w.team)
	case v != "":
		op, err = faithful.New(v, c, sched.Clock(), w.spec.namespaces())
	default:
		op, err = ref.New(c, sched.Clock(), ref.Options{Namespaces: w.spec.namespaces(), Profile: w.subject.profile, Flaw: w.subject.flaw})
	}
	if err != nil {
		return err
	}
	watches := []sim.Watch{{GVK: SampleClusterGVK, Map: op.Map}, {GVK: PodGVK, Map: op.Map}}
	for _, gvk := range workloadGVKs {
		watches = append(watches, sim.Watch{GVK: gvk, Map: op.Map})
	}
	return sched.Start(ctx, sim.Actor{Name: actorOperator, Role: RoleOperator, Reconciler: op, Watches: watches, Initial: op.Initial()})
}

// operator is what the simulator runs of an operator subject: the
// reference's, a faithful variant's or a team's reconciler, its watches'
// map and its first requests.
type operator interface {
	reconcile.Reconciler
	Map(ctx context.Context, obj client.Object) []reconcile.Request
	Initial() []reconcile.Request
}

// estimate is how many API calls a scenario costs on the reference: per
// pod its creation and three status writes, per cluster its creation, its
// workloads' writes and statuses and a few status writes of its own, and
// per fault (a step, or the load's failures) a pod's two writes, its
// workload's status and the cluster's.
func estimate(sc *scenarios.Scenario) int {
	w := scenarioWorld(sc)
	n := 10 + 6*len(sc.Steps)
	for _, c := range w.clusters() {
		n += 4
		for _, r := range c.Roles {
			pods := r.Replicas
			if r.Kind == "DaemonSet" {
				pods = len(w.nodes())
			}
			n += 4 + 4*pods
		}
	}
	if l := w.Load; l != nil && l.MeanTimeToFailure.Duration > 0 {
		failures := int(sc.Duration.Duration/l.MeanTimeToFailure.Duration) * l.Clusters
		n += 8 * failures
	}
	return n
}
