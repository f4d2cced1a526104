package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The seed's names: the Probe's kind, the annotations' prefix, the two
// OLM supported conditions and the two managers of a Probe.
var probeGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "Probe"}

const (
	annotationPrefix = "olm.operatorframework.io/condition."
	upgradeable      = "Upgradeable"
	important        = "Important"
	byAnnotations    = "crdAnnotations"
)

// owned is one owned CRD as the aggregator reads it: its CRs' kind and
// plural, and its two expressions ("" when not annotated).
type owned struct {
	crd                    string
	gvk                    schema.GroupVersionKind
	plural                 string
	upgradeable, important string
}

// Aggregator keeps one operator's Probe: its spec equal to what its owned
// CRDs' annotations say, its status what their CRs' conditions say.
type Aggregator struct {
	// Client writes the Probe (through the manager's cache).
	Client client.Client
	// Reader reads straight from the API server, bypassing the cache.
	Reader client.Reader
	// Probe is the Probe's key: the operator's CSV, in its namespace.
	Probe client.ObjectKey
	// CRDs are the operator's owned CRDs; Namespaces where their CRs are
	// counted (none: every namespace).
	CRDs, Namespaces []string
	// BlockWhenTrue reads an Upgradeable expression as the test plan's
	// literal words ("blocked if ... the boolean expression is true")
	// instead of the example's ("!Migrating": upgradeable when not
	// migrating).
	BlockWhenTrue bool
}

// Reconcile reads everything afresh, whatever changed: level-triggered.
func (a *Aggregator) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	crds, err := a.owned(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	probe := &unstructured.Unstructured{}
	probe.SetGroupVersionKind(probeGVK)
	err = a.Reader.Get(ctx, a.Probe, probe)
	switch {
	case apierrors.IsNotFound(err):
		if len(crds) == 0 {
			return ctrl.Result{}, nil // nobody opted in: no Probe
		}
		probe = &unstructured.Unstructured{}
		probe.SetGroupVersionKind(probeGVK)
		probe.SetNamespace(a.Probe.Namespace)
		probe.SetName(a.Probe.Name)
		if err := setSpec(probe, crds); err != nil {
			return ctrl.Result{}, err
		}
		if err := a.Client.Create(ctx, probe); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	default:
		// A Probe with no spec, or the operator's, is not the
		// aggregator's to write (002 §Example Workflow note, §Writing to
		// the Probe Resource Directly).
		manager, found, _ := unstructured.NestedString(probe.Object, "spec", "manager")
		if !found || manager != byAnnotations {
			return ctrl.Result{}, nil
		}
		before := probe.DeepCopy()
		if err := setSpec(probe, crds); err != nil {
			return ctrl.Result{}, err
		}
		if !equality.Semantic.DeepEqual(before.Object["spec"], probe.Object["spec"]) {
			if err := a.Client.Update(ctx, probe); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	return ctrl.Result{}, a.writeStatus(ctx, probe, crds)
}

// owned reads the owned CRDs that carry an OLM supported condition's
// annotation.
func (a *Aggregator) owned(ctx context.Context) ([]owned, error) {
	var out []owned
	for _, name := range a.CRDs {
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
		if err := a.Reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		ann := crd.GetAnnotations()
		o := owned{crd: name, upgradeable: ann[annotationPrefix+upgradeable], important: ann[annotationPrefix+important]}
		if o.upgradeable == "" && o.important == "" {
			continue
		}
		o.gvk, o.plural = servedKind(crd)
		out = append(out, o)
	}
	return out, nil
}

// servedKind is the kind of a CRD's CRs at its storage version, and its
// plural.
func servedKind(crd *unstructured.Unstructured) (schema.GroupVersionKind, string) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var version string
	for _, v := range versions {
		v, _ := v.(map[string]any)
		if stored, _ := v["storage"].(bool); stored || version == "" {
			version, _ = v["name"].(string)
		}
	}
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, plural
}

// setSpec makes the Probe's spec the annotations' (002 §Example Workflow:
// "OLM will override any changes to the probe's spec"): one probe resource
// per annotated CRD, its expressions as written.
func setSpec(probe *unstructured.Unstructured, crds []owned) error {
	type probeResource struct {
		Resource    string `json:"resource"`
		Upgradeable string `json:"upgradeable,omitempty"`
		Important   string `json:"important,omitempty"`
	}
	spec := struct {
		Manager        string          `json:"manager"`
		ProbeResources []probeResource `json:"probeResources"`
	}{Manager: byAnnotations, ProbeResources: []probeResource{}}
	for _, o := range crds {
		spec.ProbeResources = append(spec.ProbeResources, probeResource{Resource: o.crd, Upgradeable: o.upgradeable, Important: o.important})
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	probe.Object["spec"] = out
	return err
}

// listed is one CR of the Probe's status and why it maps to an OLM
// supported condition.
type listed struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Reasons   []string `json:"reasons,omitempty"`
}

// writeStatus aggregates the CRs: Upgradeable False when one of them says
// its operator may not be upgraded ("If a single CR communicates that the
// operator is not upgradeable, OLM will not upgrade the operator"), and
// the CRs with their reasons.
func (a *Aggregator) writeStatus(ctx context.Context, probe *unstructured.Unstructured, crds []owned) error {
	var crs []listed
	blocked := false
	for _, o := range crds {
		items, err := a.list(ctx, o.gvk)
		if err != nil {
			return err
		}
		for _, cr := range items {
			reasons, blocks := judge(o, conditionsOf(cr), a.BlockWhenTrue)
			blocked = blocked || blocks
			if len(reasons) > 0 {
				crs = append(crs, listed{Kind: o.plural, Name: cr.GetName(), Namespace: cr.GetNamespace(), Reasons: reasons})
			}
		}
	}
	slices.SortFunc(crs, func(x, y listed) int {
		return strings.Compare(x.Namespace+"/"+x.Kind+"/"+x.Name, y.Namespace+"/"+y.Kind+"/"+y.Name)
	})
	var status struct {
		Conditions     []metav1.Condition `json:"conditions,omitempty"`
		ProbeResources []listed           `json:"probeResources,omitempty"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(mapAt(probe.Object, "status"), &status); err != nil {
		return fmt.Errorf("reading the Probe's status: %w", err)
	}
	cond := metav1.Condition{Type: upgradeable, Status: metav1.ConditionTrue, Reason: "NoResourceBlocks",
		Message: "No resource of the operator says it may not be upgraded"}
	if blocked {
		cond = metav1.Condition{Type: upgradeable, Status: metav1.ConditionFalse, Reason: "NotUpgradeable",
			Message: "The operator has communicated that the operator is not upgradeable"}
	}
	before := probe.DeepCopy()
	meta.SetStatusCondition(&status.Conditions, cond) // moves lastTransitionTime on a change of status only
	status.ProbeResources = crs
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		return err
	}
	probe.Object["status"] = out
	if equality.Semantic.DeepEqual(before.Object["status"], probe.Object["status"]) {
		return nil
	}
	return a.Client.Status().Update(ctx, probe)
}

// list reads the CRs of kind in the namespaces counted.
func (a *Aggregator) list(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
	namespaces := a.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""} // every namespace
	}
	var out []unstructured.Unstructured
	for _, ns := range namespaces {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := a.Reader.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
	}
	return out, nil
}

// conditionsOf is a CR's status.conditions, type to status.
func conditionsOf(cr unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, c := range conds {
		c, _ := c.(map[string]any)
		t, _ := c["type"].(string)
		s, _ := c["status"].(string)
		out[t] = s
	}
	return out
}

// judge says why a CR maps to an OLM supported condition: its Upgradeable
// expression, as written, when it blocks, and each condition its
// Important expression names that is True (the seed's reasons
// "!Migrating", "UnhealthyDatabase", "BadConnectivity"). An expression
// that does not parse blocks nothing, and an Important expression other
// than types joined by || lists nothing (the seed says it "should only
// include the OR boolean operator").
func judge(o owned, status map[string]string, blockWhenTrue bool) (reasons []string, blocks bool) {
	if n, err := parse(o.upgradeable); o.upgradeable != "" && err == nil {
		v := n.eval(status)
		blocks = v == no && !blockWhenTrue || v == yes && blockWhenTrue
	}
	if blocks {
		reasons = append(reasons, o.upgradeable)
	}
	if n, err := parse(o.important); o.important != "" && err == nil {
		if names, ok := n.names(); ok {
			for _, t := range names {
				if status[t] == "True" && !slices.Contains(reasons, t) {
					reasons = append(reasons, t)
				}
			}
		}
	}
	return reasons, blocks
}

// mapAt is the object's map at key, or an empty one.
func mapAt(obj map[string]any, key string) map[string]any {
	if m, ok := obj[key].(map[string]any); ok {
		return m
	}
	return map[string]any{}
}
