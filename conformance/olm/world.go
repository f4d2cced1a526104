package olm

import (
	"context"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reference/olm/expr"
	"github.com/opcert/opcert/scenarios"
)

// crKinds are the sample CRDs' kinds (group example.com, version v1).
var crKinds = map[string]bool{"Foo": true, "Bar": true}

func crGVK(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: kind}
}

func object(gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// setUp builds the world at time zero: the namespaces, the owned CRDs'
// annotations, the CRs with their conditions, and the scenario's Probe and
// OperatorCondition.
func (w *world) setUp(ctx context.Context) error {
	spec := w.spec
	for _, ns := range spec.namespaces() {
		if err := w.scenario.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	if w.deployed != nil {
		// On a cluster, once its namespace exists: the hold names it.
		if err := w.holdCRDs(ctx); err != nil {
			return err
		}
	}
	if err := w.clearAnnotations(ctx); err != nil {
		return err
	}
	for _, crd := range spec.CRDs {
		if err := w.annotate(ctx, crd); err != nil {
			return err
		}
	}
	for _, cr := range spec.CRs {
		if err := w.createCR(ctx, cr); err != nil {
			return err
		}
	}
	if spec.Probe != nil {
		if err := w.user().Create(ctx, w.probeObject(*spec.Probe)); err != nil {
			return fmt.Errorf("creating the Probe: %w", err)
		}
	}
	if oc := spec.OperatorCondition; oc != nil {
		u := object(OperatorConditionGVK, spec.namespace(), spec.csv())
		if !w.teamOperator() {
			if err := unstructured.SetNestedSlice(u.Object, mergeConditions(nil, oc.Conditions, nil, w.st.Sched.Now(), true), "spec", "conditions"); err != nil {
				return err
			}
		}
		if err := w.user().Create(ctx, u); err != nil {
			return fmt.Errorf("creating the OperatorCondition: %w", err)
		}
	}
	return w.loadCRs(ctx)
}

// clearAnnotations takes the condition annotations an earlier run left
// off the sample CRDs, unrecorded: the CRDs are shared by the runs of an
// API server (package doc), and a timeline must not depend on which
// scenario ran before it.
func (w *world) clearAnnotations(ctx context.Context) error {
	for _, name := range sortedKeys(ownedCRDs) {
		u := object(CRDGVK, "", name)
		if err := w.st.API.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return fmt.Errorf("reading CRD %s: %w", name, err)
		}
		ann := u.GetAnnotations()
		n := len(ann)
		maps.DeleteFunc(ann, func(k, _ string) bool { return strings.HasPrefix(k, expr.AnnotationPrefix) })
		if len(ann) == n {
			continue
		}
		u.SetAnnotations(ann)
		if err := w.st.API.Update(ctx, u); err != nil {
			return fmt.Errorf("clearing the annotations of CRD %s: %w", name, err)
		}
	}
	return nil
}

// annotate makes crd's condition annotations exactly the given ones: the
// CRD is shared by the runs of an API server, so what an earlier run left
// is removed.
func (w *world) annotate(ctx context.Context, crd CRD) error {
	u := object(CRDGVK, "", crd.Name)
	if err := w.scenario.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		return fmt.Errorf("reading CRD %s: %w", crd.Name, err)
	}
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	want := maps.Clone(ann)
	maps.DeleteFunc(want, func(k, _ string) bool { return strings.HasPrefix(k, expr.AnnotationPrefix) })
	if crd.Upgradeable != nil {
		want[expr.AnnotationPrefix+expr.NameUpgradeable] = *crd.Upgradeable
	}
	if crd.Important != nil {
		want[expr.AnnotationPrefix+expr.NameImportant] = *crd.Important
	}
	for _, a := range crd.Other {
		want[expr.AnnotationPrefix+a.Name] = a.Expression
	}
	if maps.Equal(ann, want) {
		return nil
	}
	u.SetAnnotations(want)
	if err := w.scenario.Update(ctx, u); err != nil {
		return fmt.Errorf("annotating CRD %s: %w", crd.Name, err)
	}
	return nil
}

// createCR creates a CR and writes its conditions, as its operator would;
// a team's operator writes its own (operator.go).
func (w *world) createCR(ctx context.Context, cr CR) error {
	u := object(crGVK(cr.Kind), cr.Namespace, cr.Name)
	if err := w.user().Create(ctx, u); err != nil {
		return fmt.Errorf("creating %s %s/%s: %w", cr.Kind, cr.Namespace, cr.Name, err)
	}
	if len(cr.Conditions) == 0 || w.teamOperator() {
		return nil
	}
	if err := unstructured.SetNestedSlice(u.Object, mergeConditions(nil, cr.Conditions, nil, w.st.Sched.Now(), false), "status", "conditions"); err != nil {
		return err
	}
	return w.operator.Status().Update(ctx, u)
}

// setConditions sets and removes conditions of a CR, moving a condition's
// lastTransitionTime only when its status changes.
func (w *world) setConditions(ctx context.Context, s *SetConditions) error {
	u := object(crGVK(s.Kind), s.Namespace, s.Name)
	if err := w.operator.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		return fmt.Errorf("reading %s %s/%s: %w", s.Kind, s.Namespace, s.Name, err)
	}
	old, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		return err
	}
	conds := mergeConditions(old, s.Conditions, s.Remove, w.st.Sched.Now(), false)
	if err := unstructured.SetNestedSlice(u.Object, conds, "status", "conditions"); err != nil {
		return err
	}
	return w.operator.Status().Update(ctx, u)
}

func (w *world) probeObject(ps ProbeSpec) *unstructured.Unstructured {
	u := object(ProbeGVK, w.spec.namespace(), w.spec.csv())
	if !ps.Nil {
		_ = unstructured.SetNestedMap(u.Object, probeSpecMap(ps), "spec")
	}
	return u
}

func probeSpecMap(ps ProbeSpec) map[string]any {
	spec := map[string]any{"manager": ps.Manager}
	if len(ps.ProbeResources) > 0 {
		var rs []any
		for _, r := range ps.ProbeResources {
			m := map[string]any{"resource": r.Resource}
			if r.Upgradeable != "" {
				m["upgradeable"] = r.Upgradeable
			}
			if r.Important != "" {
				m["important"] = r.Important
			}
			rs = append(rs, m)
		}
		spec["probeResources"] = rs
	}
	return spec
}

// editProbeSpec rewrites the Probe's spec as someone other than its
// manager would (the admin).
func (w *world) editProbeSpec(ctx context.Context, ps *ProbeSpec) error {
	u := object(ProbeGVK, w.spec.namespace(), w.spec.csv())
	if err := w.admin.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		return fmt.Errorf("reading the Probe: %w", err)
	}
	if ps.Nil {
		unstructured.RemoveNestedField(u.Object, "spec")
	} else if err := unstructured.SetNestedMap(u.Object, probeSpecMap(*ps), "spec"); err != nil {
		return err
	}
	return w.admin.Update(ctx, u)
}

// setOperatorCondition sets one of the operator's spec.conditions.
func (w *world) setOperatorCondition(ctx context.Context, c *scenarios.Condition) error {
	u, err := w.operatorCondition(ctx, w.operator)
	if err != nil {
		return err
	}
	old, _, err := unstructured.NestedSlice(u.Object, "spec", "conditions")
	if err != nil {
		return err
	}
	conds := mergeConditions(old, []scenarios.Condition{*c}, nil, w.st.Sched.Now(), true)
	if err := unstructured.SetNestedSlice(u.Object, conds, "spec", "conditions"); err != nil {
		return err
	}
	return w.operator.Update(ctx, u)
}

// override sets or removes the admin's override of Upgradeable.
func (w *world) override(ctx context.Context, o *Override) error {
	u, err := w.operatorCondition(ctx, w.admin)
	if err != nil {
		return err
	}
	old, _, err := unstructured.NestedSlice(u.Object, "spec", "overrides")
	if err != nil {
		return err
	}
	var set []scenarios.Condition
	var remove []string
	if o.Status == "" {
		remove = []string{"Upgradeable"}
	} else {
		set = []scenarios.Condition{{Type: "Upgradeable", Status: o.Status, Reason: o.Reason, Message: o.Message}}
	}
	conds := mergeConditions(old, set, remove, w.st.Sched.Now(), true)
	if err := unstructured.SetNestedSlice(u.Object, conds, "spec", "overrides"); err != nil {
		return err
	}
	return w.admin.Update(ctx, u)
}

// operatorCondition reads the operator's OperatorCondition, creating it
// (as OLM does at install) when the scenario did not.
func (w *world) operatorCondition(ctx context.Context, c client.Client) (*unstructured.Unstructured, error) {
	u := object(OperatorConditionGVK, w.spec.namespace(), w.spec.csv())
	err := c.Get(ctx, client.ObjectKeyFromObject(u), u)
	if apierrors.IsNotFound(err) {
		u = object(OperatorConditionGVK, w.spec.namespace(), w.spec.csv())
		err = w.scenario.Create(ctx, u)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the OperatorCondition: %w", err)
	}
	return u, nil
}

// upgrade asks OLM to upgrade the operator to csv.
func (w *world) upgrade(ctx context.Context, csv string) error {
	u := object(UpgradeGVK, w.spec.namespace(), csv)
	_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"from": w.spec.csv(), "to": csv, "gate": w.spec.gate()}, "spec")
	return w.scenario.Create(ctx, u)
}
