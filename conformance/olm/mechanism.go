package olm

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm/faithful"
	"github.com/opcert/opcert/conformance/olm/rules"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/judge"
	olmref "github.com/opcert/opcert/reference/olm"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
)

// The mechanism's name, as scenarios give it, and its seed.
const (
	Name = "olm"
	Seed = "002"
)

// The kinds the mechanism works on.
var (
	ProbeGVK             = olmref.ProbeGVK
	OperatorConditionGVK = olmref.OperatorConditionGVK
	UpgradeGVK           = olmref.UpgradeGVK
	CRDGVK               = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
)

// Roles of seed 002: the status probe operator, OLM, and the operator
// OLM installed (operator.go).
const (
	RoleAggregator = rules.RoleAggregator
	RoleOLM        = rules.RoleOLM
	RoleOperator   = rules.RoleOperator
)

// Actors of the world.
const (
	actorAggregator = "aggregator"
	actorOLM        = "olm"
	actorCopier     = "olm-conditions"
	actorOperator   = "operator"
	actorAdmin      = "admin"
)

// Mechanism returns seed 002's plug-in with cfg.
func Mechanism(cfg Config) conformance.Mechanism {
	return &mechanism{cfg: cfg, Tuned: conformance.Tune(cfg, Mechanism),
		Declared: conformance.Declare(Name, Seed, []conformance.Role{
			conformance.Role{Name: RoleAggregator, Subjects: aggregators, Placeholders: aggregatorPlaceholders}.Except(clusterCannot),
			{Name: RoleOLM, Subjects: gates, Cannot: olmCannot},
			{Name: RoleOperator, Subjects: operators, Placeholders: placeholders, Forms: conformance.AllForms},
		}, rules.Rules(cfg), conformance.With(cfg, build))}
}

// mechanism is seed 002's plug-in, judged with cfg. It is judged
// streaming, and given what a real-time run (process and cluster mode)
// needs: a tolerance, and a scaled run (--time-scale) the bound scaled
// (the reference aggregator and gate keep no time of their own). It
// cannot be recorded; on a cluster the team's Deployment plays the
// operator role (deployments.go), the aggregator is never a Deployment
// (RoleAggregator's Cannot).
type mechanism struct {
	conformance.Declared
	conformance.Tuned[Config, *Config]
	cfg Config
}

func (m *mechanism) Estimate(sc *scenarios.Scenario) int { return estimate(sc) }

func (m *mechanism) Online() []judge.Online { return []judge.Online{rules.Online(m.cfg)} }

func (m *mechanism) Scaled(scale float64) conformance.Mechanism {
	c := m.cfg
	c.Reaction = time.Duration(float64(c.Reaction) * scale)
	return Mechanism(c)
}

func (m *mechanism) Touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	return touches(sc, cast)
}

// ClusterKinds: its namespaces only, which need no entry: its CRs,
// Probe, OperatorCondition and Upgrades are in them. The sample CRDs are
// the cluster's, written as touched (Touches).
func (m *mechanism) ClusterKinds() []schema.GroupKind { return []schema.GroupKind{} }

func (m *mechanism) Namespaces(sc *scenarios.Scenario) []string {
	return scenarioWorld(sc).namespaces()
}

func (m *mechanism) Access(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	return access(sc, cast)
}

func (m *mechanism) Cannot() map[string]string {
	return map[string]string{
		conformance.CannotWatch: "opcert's own actors (aggregator, gate, copier, scenario) write under one field manager, so a watch cannot tell them apart, and on a live cluster the Probe and the Upgrade are opcert's stand-ins (served where opcert kind up installed them) and the CR kinds each operator's own; opcert analyze judges a run's own timeline as the run did",
	}
}

// noCluster is why the aggregator takes no Deployment: on a cluster it
// is opcert's, or a team's reconciler in opcert, as OLM's part is.
const noCluster = "the aggregator keeps the Probe of one operator, named after its CSV in its namespace, both under the run's prefix on a cluster, which a Deployment's arguments cannot name: on a cluster (where the team's Deployment plays the operator) opcert plays it, or the team's Go reconciler in opcert"

// clusterCannot: the aggregator takes every form but a Deployment
// (noCluster).
var clusterCannot = map[conformance.Form]string{conformance.FormCluster: noCluster}

// olmCannot: OLM is the platform a team's operator runs against, played
// by opcert as the seed describes it (README.md, Roles).
var olmCannot = conformance.NoForm("OLM itself (the upgrade gate, the OperatorCondition copier) is the platform a team's operator runs against, which opcert plays as the seed describes it: no team brings it")

// world is a scenario's running cluster.
type world struct {
	st   *conformance.Stage
	spec *World
	cfg  Config
	cast conformance.Cast
	// operator, admin and scenario write as the operator (the steps'
	// writes, operator.go), the cluster's admin and the harness.
	operator, admin, scenario client.Client
	// execs runs a team's operator as an executable (process mode,
	// processes.go).
	execs *execs
	// agg plays the aggregator whatever the form (aggregator_process.go).
	agg *player.Player
	// deployed plays the operator when the team's Deployment does
	// (cluster mode, deployments.go); nil otherwise.
	deployed *player.Player
}

// crFields are what the rules read of a CR: its conditions in order, and
// the annotation that asks its operator for a critical process
// (OperandAnnotation).
var crFields = []string{"status.conditions", "metadata.annotations"}

// recordedFields are what the rules read beside conditions (the timeline
// contract in rules/doc.go).
var recordedFields = map[schema.GroupVersionKind][]string{
	CRDGVK:               {"metadata.annotations", "spec.names.plural", "spec.names.kind"},
	ProbeGVK:             {"spec", "status.conditions", "status.probeResources", "metadata.generation"},
	OperatorConditionGVK: {"spec", "status.conditions", "metadata.generation"},
	UpgradeGVK:           {"spec", "status"},
}

func build(ctx context.Context, st *conformance.Stage, cfg Config, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	switch cast[RoleAggregator].Impl.(type) {
	case olmref.AggregatorFlaw, faithful.Variant, conformance.Reconciler, conformance.Process:
	default:
		return nil, fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleAggregator, cast[RoleAggregator].Impl)
	}
	if _, ok := cast[RoleOLM].Impl.(olmref.GateFlaw); !ok {
		return nil, fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleOLM, cast[RoleOLM].Impl)
	}
	sched := st.Sched
	w := &world{st: st, spec: scenarioWorld(sc), cfg: cfg, cast: cast,
		operator: sched.Client(st.API, actorOperator, RoleOperator),
		admin:    sched.Client(st.API, actorAdmin, "scenario"),
		scenario: sched.Client(st.API, "scenario", "scenario")}
	for gvk, paths := range recordedFields {
		if err := sched.RecordFields(gvk, paths...); err != nil {
			return nil, err
		}
	}
	for kind := range crKinds {
		if err := sched.RecordFields(crGVK(kind), crFields...); err != nil {
			return nil, err
		}
	}
	// A CRD's name is its plural and group: it cannot carry the run's
	// prefix (package doc).
	sched.FixNames(CRDGVK.GroupKind())
	if dep, ok := cast[RoleOperator].Impl.(conformance.Deployment); ok {
		if err := w.deployOperator(ctx, dep); err != nil {
			return nil, err
		}
	} else if st.Deployments != nil {
		return nil, errOwnOnCluster
	}
	if err := w.setUp(ctx); err != nil {
		return nil, err
	}
	for _, start := range []func(context.Context) error{w.playAggregator, w.startGate, w.startCopier, w.checkOperator} {
		if err := start(ctx); err != nil {
			return nil, err
		}
	}
	if w.execs != nil {
		if err := w.execs.start(ctx); err != nil {
			return nil, err
		}
	}
	if w.spec.Load != nil && !w.teamOperator() {
		w.queueLoad()
	}
	return stepActions.On(w), nil
}

// aggregator is what the world needs of an aggregator subject: the
// reference's and the faithful ones alike.
type aggregator interface {
	reconcile.Reconciler
	Map(ctx context.Context, obj client.Object) []reconcile.Request
	Kinds(ctx context.Context) ([]schema.GroupVersionKind, error)
}

// newAggregator is the cast's aggregator for the scenario.
func (w *world) newAggregator() (aggregator, error) {
	sched, spec := w.st.Sched, w.spec
	c, probe := sched.Client(w.st.API, actorAggregator, RoleAggregator), types.NamespacedName{Namespace: spec.namespace(), Name: spec.csv()}
	if v, ok := w.cast[RoleAggregator].Impl.(faithful.Variant); ok {
		return v.New(c, sched.Clock(), faithful.Options{Probe: probe, CRDs: spec.crdNames(), Namespaces: spec.targets(),
			BlockWhenTrue: w.cfg.Reading == ReadingBlocks}), nil
	}
	return olmref.NewAggregator(c, sched.Clock(), olmref.AggregatorOptions{
		Probe:      probe,
		CRDs:       spec.crdNames(),
		Namespaces: spec.targets(),
		Reading:    olmref.Reading(w.cfg.Reading),
		Flaw:       w.cast[RoleAggregator].Impl.(olmref.AggregatorFlaw),
	})
}

// startAggregator starts the aggregator role's subject: a team's
// reconciler (teamAggregator), or one of opcert's own with the watches it
// asks for.
func (w *world) startAggregator(ctx context.Context) error {
	if impl, ok := w.cast[RoleAggregator].Impl.(conformance.Reconciler); ok {
		return w.teamAggregator(ctx, impl)
	}
	sched := w.st.Sched
	a, err := w.newAggregator()
	if err != nil {
		return err
	}
	kinds, err := a.Kinds(ctx)
	if err != nil {
		return err
	}
	watches := []sim.Watch{{GVK: CRDGVK, Map: a.Map}, {GVK: ProbeGVK, Map: a.Map}}
	for _, k := range kinds {
		watches = append(watches, sim.Watch{GVK: k, Map: a.Map})
	}
	return sched.Start(ctx, sim.Actor{Name: actorAggregator, Role: RoleAggregator, Reconciler: a, Watches: watches,
		Initial: []reconcile.Request{w.operatorRequest()}})
}

// teamAggregator starts a team's reconciler as the aggregator (library
// mode): Instance.Name is the Probe's name (the operator's CSV), and its
// one request, {operator's namespace, CSV}, comes at its start and at
// every event of a CRD, of the Probe and of a CR of the sample kinds.
// What it counts (the annotated CRDs, the target namespaces) it reads
// from the API itself (README.md, "The aggregator role").
func (w *world) teamAggregator(ctx context.Context, impl conformance.Reconciler) error {
	sched := w.st.Sched
	r, err := impl.New(conformance.Instance{Client: sched.Client(w.st.API, actorAggregator, RoleAggregator), Clock: sched.Clock(), Name: w.spec.csv()})
	if err != nil {
		return fmt.Errorf("building the team's aggregator: %w", err)
	}
	req := w.operatorRequest()
	toProbe := func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{req} }
	watches := []sim.Watch{{GVK: CRDGVK, Map: toProbe}, {GVK: ProbeGVK, Map: toProbe}}
	for _, kind := range sortedKeys(ownedCRDs) {
		watches = append(watches, sim.Watch{GVK: crGVK(ownedCRDs[kind]), Map: toProbe})
	}
	return sched.Start(ctx, sim.Actor{Name: actorAggregator, Role: RoleAggregator, Reconciler: r, Watches: watches,
		Initial: []reconcile.Request{req}})
}

// startGate starts OLM's upgrade gate.
func (w *world) startGate(ctx context.Context) error {
	sched := w.st.Sched
	g := olmref.NewGate(sched.Client(w.st.API, actorOLM, RoleOLM), sched.Clock(),
		olmref.GateOptions{Namespace: w.spec.namespace(), Flaw: w.cast[RoleOLM].Impl.(olmref.GateFlaw)})
	return sched.Start(ctx, sim.Actor{Name: actorOLM, Role: RoleOLM, Reconciler: g,
		Watches: []sim.Watch{{GVK: UpgradeGVK}, {GVK: ProbeGVK, Map: g.Map}, {GVK: OperatorConditionGVK, Map: g.Map}}})
}

// startCopier starts OLM's copy of OperatorCondition spec.conditions to
// their status.
func (w *world) startCopier(ctx context.Context) error {
	sched := w.st.Sched
	c := olmref.NewCopier(sched.Client(w.st.API, actorCopier, RoleOLM), sched.Clock(), w.cast[RoleOLM].Impl.(olmref.GateFlaw))
	var initial []reconcile.Request
	if w.spec.OperatorCondition != nil {
		initial = append(initial, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: w.spec.namespace(), Name: w.spec.csv()}})
	}
	return sched.Start(ctx, sim.Actor{Name: actorCopier, Role: RoleOLM, Reconciler: c,
		Watches: []sim.Watch{{GVK: OperatorConditionGVK}}, Initial: initial})
}

// estimate is how many API calls a scenario costs on the reference: the
// set-up's writes (namespaces, CRDs, each CR's create and status), the
// aggregator's reads and writes per change (a read of the CR, a status
// write), and a few per step.
func estimate(sc *scenarios.Scenario) int {
	w := scenarioWorld(sc)
	n := 10 + len(w.targets()) + 2*len(w.CRDs) + 2*len(w.CRs) + 6*len(sc.Steps)
	if w.Load != nil {
		n += 2*w.Load.CRs + w.Load.Namespaces + 3*w.Load.Changes
	}
	return n
}
