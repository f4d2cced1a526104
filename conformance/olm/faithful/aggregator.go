package faithful

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/probe"
)

// Options say which Probe an aggregator keeps and what it reads.
type Options struct {
	// Probe is named after the operator's CSV, in its namespace.
	Probe types.NamespacedName
	// CRDs are the operator's owned CRDs, by name.
	CRDs []string
	// Namespaces are the target namespaces whose CRs count.
	Namespaces []string
	// BlockWhenTrue reads an Upgradeable expression as saying when the
	// upgrade is blocked (002 §Test Plan read literally); otherwise it says
	// when the operator is upgradeable (the seed's example).
	BlockWhenTrue bool
}

const annotationPrefix = "olm.operatorframework.io/condition."

var (
	probeGVK = probe.GroupVersion.WithKind("Probe")
	crdGVK   = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
)

// Aggregator is a Variant at work: a controller-runtime Reconciler that
// looks Latency after the first change it is told of, and then reads
// everything afresh.
type Aggregator struct {
	v     Variant
	o     Options
	c     client.Client
	clock clock.PassiveClock

	mu sync.Mutex
	// due is when the change first seen since the last look is looked at.
	due time.Time
}

// New is v aggregating through c with time from clk.
func (v Variant) New(c client.Client, clk clock.PassiveClock, o Options) *Aggregator {
	return &Aggregator{v: v, o: o, c: c, clock: clk}
}

// Map asks for the Probe on any event of an owned CRD, the Probe, or a
// CR in a target namespace.
func (a *Aggregator) Map(_ context.Context, obj client.Object) []reconcile.Request {
	gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
	switch {
	case gk == crdGVK.GroupKind() && !slices.Contains(a.o.CRDs, obj.GetName()):
		return nil
	case gk == probeGVK.GroupKind() && client.ObjectKeyFromObject(obj) != a.o.Probe:
		return nil
	case gk != crdGVK.GroupKind() && gk != probeGVK.GroupKind() && !slices.Contains(a.o.Namespaces, obj.GetNamespace()):
		return nil
	}
	return []reconcile.Request{{NamespacedName: a.o.Probe}}
}

// crd is what the aggregator reads of an owned CRD.
type crd struct {
	name, group, version, kind, plural string
	annotations                        map[string]string
}

func (c crd) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: c.group, Version: c.version, Kind: c.kind}
}

// Kinds are the kinds of the owned CRDs that exist, for the watches.
func (a *Aggregator) Kinds(ctx context.Context) ([]schema.GroupVersionKind, error) {
	crds, err := a.crds(ctx)
	var out []schema.GroupVersionKind
	for _, c := range crds {
		out = append(out, c.gvk())
	}
	return out, err
}

func (a *Aggregator) crds(ctx context.Context) ([]crd, error) {
	var out []crd
	for _, name := range a.o.CRDs {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(crdGVK)
		if err := a.c.Get(ctx, client.ObjectKey{Name: name}, u); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		c := crd{name: name, annotations: u.GetAnnotations()}
		c.group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
		c.kind, _, _ = unstructured.NestedString(u.Object, "spec", "names", "kind")
		c.plural, _, _ = unstructured.NestedString(u.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
		for _, v := range versions {
			if m, _ := v.(map[string]any); m["storage"] == true {
				c.version, _ = m["name"].(string)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// Reconcile waits out the latency from the first change it is told of,
// then brings the Probe's spec and status to what the CRDs and CRs say.
func (a *Aggregator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	if a.due.IsZero() {
		a.due = now.Add(a.v.Latency)
	}
	if wait := a.due.Sub(now); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	if err := a.look(ctx, now); err != nil {
		return reconcile.Result{}, err // the next look is the retry's
	}
	a.due = time.Time{}
	return reconcile.Result{}, nil
}

// look reads everything and writes what differs.
func (a *Aggregator) look(ctx context.Context, now time.Time) error {
	crds, err := a.crds(ctx)
	if err != nil {
		return err
	}
	want := a.spec(crds)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(probeGVK)
	err = a.c.Get(ctx, a.o.Probe, u)
	switch {
	case apierrors.IsNotFound(err):
		if len(want.ProbeResources) == 0 {
			return nil // no CRD opts in: no Probe
		}
		u = &unstructured.Unstructured{}
		u.SetGroupVersionKind(probeGVK)
		u.SetNamespace(a.o.Probe.Namespace)
		u.SetName(a.o.Probe.Name)
		if err := put(u, "spec", &want); err != nil {
			return err
		}
		if err := a.c.Create(ctx, u); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	var p probe.Probe
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
		return err
	}
	if p.Spec == nil || p.Spec.Manager != probe.ManagerCRDAnnotations {
		return nil // the operator's (002 §Writing to the Probe Resource Directly; the note on a nil spec)
	}
	if !sameResources(p.Spec.ProbeResources, want.ProbeResources) {
		if err := put(u, "spec", &want); err != nil {
			return err
		}
		if err := a.c.Update(ctx, u); err != nil {
			return err
		}
		p.Spec = &want
	}
	st, err := a.status(ctx, crds, *p.Spec, p.Status, u.GetGeneration(), now)
	if err != nil {
		return err
	}
	if equalStatus(st, p.Status) {
		return nil
	}
	if err := put(u, "status", &st); err != nil {
		return err
	}
	return a.c.Status().Update(ctx, u)
}

// spec is what the annotations ask for: one probe resource per owned CRD
// with an Upgradeable or Important annotation.
func (a *Aggregator) spec(crds []crd) probe.Spec {
	s := probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{}}
	for _, c := range crds {
		up, hasUp := c.annotations[annotationPrefix+"Upgradeable"]
		imp, hasImp := c.annotations[annotationPrefix+"Important"]
		if hasUp || hasImp {
			s.ProbeResources = append(s.ProbeResources, probe.Resource{Resource: c.name, Upgradeable: up, Important: imp})
		}
	}
	if a.v.ReverseSpec {
		sort.SliceStable(s.ProbeResources, func(i, j int) bool { return s.ProbeResources[i].Resource > s.ProbeResources[j].Resource })
	}
	return s
}

func sameResources(a, b []probe.Resource) bool {
	return slices.Equal(a, b) && (a == nil) == (b == nil)
}

// entry is one CR the status lists.
type entry struct {
	kind, namespace, name string
	reasons               []string
}

// status is the Probe's status over the CRs of spec's probe resources.
func (a *Aggregator) status(ctx context.Context, crds []crd, spec probe.Spec, prev probe.Status, generation int64, now time.Time) (probe.Status, error) {
	byName := map[string]crd{}
	for _, c := range crds {
		byName[c.name] = c
	}
	var entries []entry
	var blockers []string
	for _, r := range spec.ProbeResources {
		c, ok := byName[r.Resource]
		if !ok || c.version == "" {
			continue // not the operator's: its rights are the operator's
		}
		up, _ := parse(r.Upgradeable) // one that does not parse cannot be calculated
		var named []string
		if imp, err := parse(r.Important); err == nil && (imp.onlyOr() || a.v.AndInImportant) {
			named = imp.types()
		}
		crs, err := a.list(ctx, c)
		if err != nil {
			return probe.Status{}, err
		}
		for _, cr := range crs {
			var important []string
			for _, t := range named {
				if cr.conds[t] == "True" {
					important = append(important, t)
				}
			}
			blocks := up != nil && a.blocks(up.eval(cr.conds))
			if blocks {
				blockers = append(blockers, fmt.Sprintf("%s %s/%s", c.kind, cr.namespace, cr.name))
			}
			if !blocks && len(important) == 0 {
				continue
			}
			e := entry{kind: a.v.Kind(c), namespace: cr.namespace, name: cr.name}
			if blocks && !a.v.ImportantFirst {
				e.reasons = append(e.reasons, a.v.BlockReason(r.Upgradeable))
			}
			e.reasons = append(e.reasons, important...)
			if blocks && a.v.ImportantFirst {
				e.reasons = append(e.reasons, a.v.BlockReason(r.Upgradeable))
			}
			entries = append(entries, e)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return a.v.Less(entries[i], entries[j]) })
	st := probe.Status{Conditions: slices.Clone(prev.Conditions)}
	for _, e := range entries {
		st.ProbeResources = append(st.ProbeResources, probe.ResourceStatus{Kind: e.kind, Namespace: e.namespace, Name: e.name, Reasons: e.reasons})
	}
	sort.Strings(blockers)
	c := metav1.Condition{Type: "Upgradeable", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}
	if len(blockers) > 0 {
		c.Status = metav1.ConditionFalse
	}
	c.Reason, c.Message = a.v.Texts(len(blockers) > 0, blockers)
	if a.v.ObservedGeneration {
		c.ObservedGeneration = generation
	}
	meta.SetStatusCondition(&st.Conditions, c) // moves lastTransitionTime only with the status
	return st, nil
}

// blocks reads an Upgradeable expression's value: Unknown never blocks.
func (a *Aggregator) blocks(v value) bool {
	if a.o.BlockWhenTrue {
		return v == yes
	}
	return v == no
}

// cr is one CR: its conditions' statuses by type.
type cr struct {
	namespace, name string
	conds           map[string]string
}

// list reads the CRs of c in every target namespace.
func (a *Aggregator) list(ctx context.Context, c crd) ([]cr, error) {
	var out []cr
	for _, ns := range a.o.Namespaces {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(c.gvk().GroupVersion().WithKind(c.kind + "List"))
		if err := a.c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		for _, item := range l.Items {
			x := cr{namespace: ns, name: item.GetName(), conds: map[string]string{}}
			raw, _, _ := unstructured.NestedSlice(item.Object, "status", "conditions")
			for _, r := range raw {
				m, _ := r.(map[string]any)
				t, _ := m["type"].(string)
				s, _ := m["status"].(string)
				x.conds[t] = s
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// equalStatus tells whether a write would change nothing.
func equalStatus(a, b probe.Status) bool { return apiequality.Semantic.DeepEqual(a, b) }

// put sets field of u to v, a pointer to a struct.
func put(u *unstructured.Unstructured, field string, v any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return err
	}
	u.Object[field] = m
	return nil
}
