package olm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/probe"
)

// AggregatorOptions configure an Aggregator.
type AggregatorOptions struct {
	// Probe is the Probe it manages, named like the operator's CSV.
	Probe types.NamespacedName
	// CRDs are the names of the operator's owned CRDs ("foos.example.com").
	CRDs []string
	// Namespaces are the target namespaces whose CRs count, as the client
	// names them.
	Namespaces []string
	// Reading is what an Upgradeable expression states; empty: ReadingHolds.
	Reading Reading
	// Flaw is "" for the reference.
	Flaw AggregatorFlaw
}

// Aggregator is the seed's Status Probe Operator as a controller-runtime
// Reconciler: it keeps the Probe's spec equal to the owned CRDs'
// annotations (DesiredSpec) and its status equal to what the CRs say
// (Judge, Status), with time from its clock.
//
// It is incremental, for operators with many CRs: its first Reconcile
// lists the CRs of each probe resource in each target namespace once and
// keeps their conditions in memory; later ones Get only the CRs Map
// marked dirty (gone when not found) and judge those again, or every CR in
// memory when the spec changed. A new Aggregator (a restarted process)
// starts afresh with a list.
type Aggregator struct {
	client     client.Client
	clock      clock.PassiveClock
	o          AggregatorOptions
	namespaces []string // the target namespaces it reads, sorted
	targets    map[string]bool

	mu sync.Mutex
	// listed holds the kinds whose CRs have been listed; crs every CR of
	// those kinds in the target namespaces.
	listed map[schema.GroupKind]bool
	crs    map[crKey]*crMemo
	// judged is what the verdicts in crs were judged against: the
	// compiled resources of the spec, with the kinds and plurals of their
	// CRDs.
	judged string
	// owed is the status the Late flaw writes, the one it computed at the
	// change before computed.
	owed, computed *probe.Status

	dirtyMu sync.Mutex
	dirty   map[crKey]bool
}

type crKey struct {
	gk              schema.GroupKind
	namespace, name string
}

// crMemo is what the aggregator remembers of one CR.
type crMemo struct {
	conds   []metav1.Condition
	verdict Verdict
	fresh   bool // verdict follows conds and the spec judged
}

// NewAggregator is an Aggregator talking through c, with time from clk.
// The error is options it cannot work with.
func NewAggregator(c client.Client, clk clock.PassiveClock, o AggregatorOptions) (*Aggregator, error) {
	if o.Probe.Name == "" || o.Probe.Namespace == "" {
		return nil, errors.New("olm aggregator: give the Probe's namespace and name")
	}
	switch o.Reading {
	case "":
		o.Reading = ReadingHolds
	case ReadingHolds, ReadingBlocks:
	default:
		return nil, fmt.Errorf("olm aggregator: unknown reading %q: give %q or %q", o.Reading, ReadingHolds, ReadingBlocks)
	}
	if o.Flaw != "" && o.Flaw.Description() == "" {
		return nil, fmt.Errorf("olm aggregator: unknown flaw %q", o.Flaw)
	}
	if o.Flaw == MisnamedProbe {
		o.Probe.Name, _, _ = strings.Cut(o.Probe.Name, ".")
	}
	ns := slices.Sorted(slices.Values(o.Namespaces))
	ns = slices.Compact(ns)
	if i := slices.IndexFunc(ns, func(n string) bool { return n != o.Probe.Namespace }); o.Flaw == MisplacedProbe && i >= 0 {
		o.Probe.Namespace = ns[i]
	}
	if o.Flaw == IgnoresNamespace && len(ns) > 0 {
		ns = ns[:len(ns)-1]
	}
	a := &Aggregator{client: c, clock: clk, o: o, namespaces: ns, targets: map[string]bool{},
		listed: map[schema.GroupKind]bool{}, crs: map[crKey]*crMemo{}, dirty: map[crKey]bool{}}
	for _, n := range ns {
		a.targets[n] = true
	}
	return a, nil
}

// Map is the handler.MapFunc of the aggregator's watches (the owned CRDs,
// the Probe and every CR kind): a CR of a target namespace is marked
// dirty, to be read again; any of them asks for the Probe's request. A
// CRD it does not own or another Probe asks for nothing.
func (a *Aggregator) Map(_ context.Context, obj client.Object) []reconcile.Request {
	req := []reconcile.Request{{NamespacedName: a.o.Probe}}
	gvk := obj.GetObjectKind().GroupVersionKind()
	switch {
	case gvk.GroupKind() == crdGVK.GroupKind():
		if !slices.Contains(a.o.CRDs, obj.GetName()) {
			return nil
		}
	case gvk.GroupKind() == ProbeGVK.GroupKind():
		if client.ObjectKeyFromObject(obj) != a.o.Probe {
			return nil
		}
	default:
		if !a.targets[obj.GetNamespace()] {
			return nil
		}
		a.dirtyMu.Lock()
		a.dirty[crKey{gvk.GroupKind(), obj.GetNamespace(), obj.GetName()}] = true
		a.dirtyMu.Unlock()
	}
	return req
}

// Kinds are the kinds of the owned CRDs' CRs (group, storage version,
// kind), for the watches; an owned CRD not yet created has none.
func (a *Aggregator) Kinds(ctx context.Context) ([]schema.GroupVersionKind, error) {
	crds, err := a.readCRDs(ctx)
	if err != nil {
		return nil, err
	}
	var out []schema.GroupVersionKind
	for _, c := range crds {
		out = append(out, c.GVK())
	}
	return out, nil
}

// Reconcile brings the Probe, spec and status, up to date (any request).
func (a *Aggregator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	crds, err := a.readCRDs(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	desired := DesiredSpec(crds)
	if a.o.Flaw == DropsImportant {
		for i := range desired.ProbeResources {
			desired.ProbeResources[i].Important = ""
		}
	}
	u, err := get(ctx, a.client, ProbeGVK, a.o.Probe)
	if err != nil {
		return reconcile.Result{}, err
	}
	if u == nil {
		if !Annotated(crds) {
			return reconcile.Result{}, nil
		}
		if a.o.Flaw == WaitsForCRs {
			if none, err := a.noCRs(ctx, crds, desired); err != nil || none {
				return reconcile.Result{}, err
			}
		}
		if u, err = a.create(ctx, desired); err != nil {
			return reconcile.Result{}, err
		}
	}
	p, err := probeOf(u)
	if err != nil {
		return reconcile.Result{}, err
	}
	spec := p.Spec
	switch {
	case spec == nil:
		// 002 §Example Workflow's note: the operator updates the CRs itself.
		switch a.o.Flaw {
		case NilSpecAggregates:
			spec = &desired
		case NilSpecAsEmpty:
			spec = &probe.Spec{Manager: probe.ManagerCRDAnnotations}
		default:
			return reconcile.Result{}, nil
		}
	case spec.Manager == probe.ManagerOperator && a.o.Flaw == IgnoresManager:
		// The flaw aggregates the operator's spec, which lists nothing.
	case spec.Manager != probe.ManagerCRDAnnotations:
		// 002 §Writing to the Probe Resource Directly: the operator's.
		return reconcile.Result{}, nil
	case !SameSpec(spec, &desired) && a.o.Flaw != FrozenSpec:
		// 002 §Example Workflow: OLM overrides any change to the spec.
		if err := setField(u, "spec", &desired); err != nil {
			return reconcile.Result{}, err
		}
		if err := a.client.Update(ctx, u); err != nil {
			return reconcile.Result{}, err
		}
		spec = &desired
	}
	resources, problems := Compile(*spec)
	problems = append(problems, Unsupported(crds)...)
	entries, err := a.judge(ctx, crds, spec.ProbeResources, resources)
	if err != nil {
		return reconcile.Result{}, err
	}
	st, changed := Status(entries, problems, p.Status, u.GetGeneration(), now, a.o.Flaw)
	if a.o.Flaw == Late {
		st, changed = a.late(st, p.Status)
	}
	if !changed {
		return reconcile.Result{}, nil
	}
	if err := setField(u, "status", &st); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, a.client.Status().Update(ctx, u)
}

// late is the Late flaw: at each change of what it computes, it writes
// what it computed at the change before, one change behind. A reconcile
// its own write wakes brings no change and writes nothing more, so the
// flaw never chases its own writes.
func (a *Aggregator) late(st, have probe.Status) (probe.Status, bool) {
	if a.computed == nil || !sameContent(*a.computed, st) {
		a.owed, a.computed = a.computed, &st
	}
	if a.owed == nil {
		return have, false
	}
	return *a.owed, !apiequality.Semantic.DeepEqual(*a.owed, have)
}

// sameContent tells whether two statuses say the same, their conditions'
// times and generations aside.
func sameContent(a, b probe.Status) bool {
	if len(a.Conditions) != len(b.Conditions) || !apiequality.Semantic.DeepEqual(a.ProbeResources, b.ProbeResources) {
		return false
	}
	for i, c := range a.Conditions {
		d := b.Conditions[i]
		if c.Type != d.Type || c.Status != d.Status || c.Reason != d.Reason || c.Message != d.Message {
			return false
		}
	}
	return true
}

// noCRs is the WaitsForCRs flaw's question before it creates the Probe:
// whether the probe resources of spec have no CR in the target
// namespaces (it lists them, as the first aggregation would).
func (a *Aggregator) noCRs(ctx context.Context, crds []CRD, spec probe.Spec) (bool, error) {
	resources, _ := Compile(spec)
	if _, err := a.judge(ctx, crds, spec.ProbeResources, resources); err != nil {
		return false, err
	}
	return len(a.crs) == 0, nil
}

// create makes the Probe with the spec the annotations ask for.
func (a *Aggregator) create(ctx context.Context, spec probe.Spec) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ProbeGVK)
	u.SetNamespace(a.o.Probe.Namespace)
	u.SetName(a.o.Probe.Name)
	if err := setField(u, "spec", &spec); err != nil {
		return nil, err
	}
	return u, a.client.Create(ctx, u)
}

// readCRDs reads the owned CRDs that exist, in the order given.
func (a *Aggregator) readCRDs(ctx context.Context) ([]CRD, error) {
	var out []CRD
	for _, name := range a.o.CRDs {
		u, err := get(ctx, a.client, crdGVK, client.ObjectKey{Name: name})
		if err != nil {
			return nil, err
		}
		if u != nil {
			out = append(out, crdOf(u))
		}
	}
	return out, nil
}
