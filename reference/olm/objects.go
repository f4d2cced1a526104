package olm

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/probe"
)

// The kinds the adapters read and write. Every object goes through the
// client as unstructured, so that the adapters need nothing of the
// client's scheme: OperatorCondition and Upgrade have no Go types here,
// and the Probe is converted to and from package probe's.
var (
	ProbeGVK             = probe.GroupVersion.WithKind("Probe")
	UpgradeGVK           = schema.GroupVersionKind{Group: "opcert.io", Version: "v1alpha1", Kind: "Upgrade"}
	OperatorConditionGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}
	crdGVK               = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
)

// get reads the object of kind gvk at key; nil when it does not exist.
func get(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := c.Get(ctx, key, u)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return u, nil
}

// probeOf converts an unstructured Probe.
func probeOf(u *unstructured.Unstructured) (*probe.Probe, error) {
	p := &probe.Probe{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
		return nil, fmt.Errorf("reading Probe %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return p, nil
}

// setField puts v, converted, at field (spec or status) of u.
func setField(u *unstructured.Unstructured, field string, v any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return err
	}
	u.Object[field] = m
	return nil
}

// crdOf reads what the aggregator needs of a CRD: its name, the kind of
// its CRs at the storage version, its plural and its annotations.
func crdOf(u *unstructured.Unstructured) CRD {
	c := CRD{Name: u.GetName(), Annotations: u.GetAnnotations()}
	c.Group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
	c.Kind, _, _ = unstructured.NestedString(u.Object, "spec", "names", "kind")
	c.Plural, _, _ = unstructured.NestedString(u.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if storage, _ := m["storage"].(bool); storage {
			c.Version, _ = m["name"].(string)
		}
	}
	return c
}
