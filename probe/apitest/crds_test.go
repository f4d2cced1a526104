package apitest

import (
	"context"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The seed 002 fixtures as the API server applies their schemas: what a
// scenario or an actor writes is accepted, defaulted and pruned as the
// mechanism expects, and what breaks the schema is refused.
func TestFixtureSchemas(t *testing.T) {
	c, _ := clients(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		obj  string // the object created, YAML (namespace ns added)
		// status, YAML, is then written through the status subresource.
		status  string
		refused bool
		// want maps dotted field paths to their values once written.
		want map[string]any
	}{
		{name: "probe as the seed's example", obj: `
apiVersion: operators.coreos.com/v1alpha1
kind: Probe
metadata: {name: seed-example.v1.0.0}
spec:
  manager: crdAnnotations
  probeResources:
  - {resource: foos.example.com, upgradeable: "!Migrating", important: "BadConnectivity || UnhealthyDatabase"}`, status: `
conditions:
- {type: Upgradeable, status: "False", reason: NotUpgradeable, message: The operator has communicated that the operator is not upgradeable, lastTransitionTime: "2026-01-01T00:00:00Z"}
probeResources:
- {kind: foos, name: foo-example, namespace: default, reasons: ["!Migrating", UnhealthyDatabase, BadConnectivity]}`,
			want: map[string]any{"status.probeResources": []any{map[string]any{"kind": "foos", "name": "foo-example", "namespace": "default", "reasons": []any{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}}}}},
		{name: "probe with a null probeResources: pruned", obj: `
apiVersion: operators.coreos.com/v1alpha1
kind: Probe
metadata: {name: null-resources.v1.0.0}
spec: {manager: operator, probeResources: null}`,
			want: map[string]any{"spec": map[string]any{"manager": "operator"}}},
		{name: "probe with another manager", refused: true, obj: `
apiVersion: operators.coreos.com/v1alpha1
kind: Probe
metadata: {name: other-manager.v1.0.0}
spec: {manager: someone}`},
		{name: "probe resource without its name", refused: true, obj: `
apiVersion: operators.coreos.com/v1alpha1
kind: Probe
metadata: {name: nameless.v1.0.0}
spec: {manager: crdAnnotations, probeResources: [{upgradeable: "!Migrating"}]}`},
		{name: "probe condition without lastTransitionTime", refused: true, obj: `
apiVersion: operators.coreos.com/v1alpha1
kind: Probe
metadata: {name: no-stamp.v1.0.0}
spec: {manager: operator}`, status: `
conditions: [{type: Upgradeable, status: "False", reason: FooProcess, message: busy}]`},
		{name: "upgrade: gate defaults to probe", obj: `
apiVersion: opcert.io/v1alpha1
kind: Upgrade
metadata: {name: foo-operator.v2.0.0}
spec: {from: foo-operator.v1.0.0, to: foo-operator.v2.0.0}`, status: `
{phase: Pending, reason: ProbeNotUpgradeable, message: blocked}`,
			want: map[string]any{"spec.gate": "probe", "status.phase": "Pending"}},
		{name: "upgrade without to", refused: true, obj: `
apiVersion: opcert.io/v1alpha1
kind: Upgrade
metadata: {name: no-to.v2.0.0}
spec: {from: foo-operator.v1.0.0}`},
		{name: "upgrade through another gate", refused: true, obj: `
apiVersion: opcert.io/v1alpha1
kind: Upgrade
metadata: {name: other-gate.v2.0.0}
spec: {from: foo-operator.v1.0.0, to: other-gate.v2.0.0, gate: csv}`},
		{name: "upgrade failed is no phase", refused: true, obj: `
apiVersion: opcert.io/v1alpha1
kind: Upgrade
metadata: {name: failed.v2.0.0}
spec: {from: foo-operator.v1.0.0, to: failed.v2.0.0, gate: operatorcondition}`, status: `
{phase: Failed}`},
		{name: "foo as a careless operator writes it", obj: `
apiVersion: example.com/v1
kind: Foo
metadata: {name: foo-example}
spec: {size: 3, anything: [goes]}`, status: `
conditions:
- {type: Migrating, status: "True", reason: CriticalProcess, message: Migrating old database schema to new format}
- {type: UnhealthyDatabase, status: Maybe}
- {type: BadConnectivity, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1}`,
			want: map[string]any{"spec.anything": []any{"goes"}, "status.conditions": []any{
				map[string]any{"type": "Migrating", "status": "True", "reason": "CriticalProcess", "message": "Migrating old database schema to new format"},
				map[string]any{"type": "UnhealthyDatabase", "status": "Maybe"},
				map[string]any{"type": "BadConnectivity", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": int64(1)},
			}}},
		{name: "bar condition without a type", refused: true, obj: `
apiVersion: example.com/v1
kind: Bar
metadata: {name: bar-example}
spec: {}`, status: `
conditions: [{status: "True"}]`},
		{name: "operator condition v2", obj: `
apiVersion: operators.coreos.com/v2
kind: OperatorCondition
metadata: {name: foo-operator.v1.0.0}
spec:
  conditions:
  - {type: Upgradeable, status: "False", reason: Migrating, message: migrating, lastTransitionTime: "2026-01-01T00:00:00Z"}
  overrides:
  - {type: Upgradeable, status: "True", reason: AdminSaysSo, message: upgrade anyway}`, status: `
conditions:
- {type: Upgradeable, status: "False", reason: Migrating, message: migrating, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1}`,
			want: map[string]any{"spec.overrides": []any{map[string]any{"type": "Upgradeable", "status": "True", "reason": "AdminSaysSo", "message": "upgrade anyway"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tc.obj), &obj.Object); err != nil {
				t.Fatal(err)
			}
			obj.SetNamespace(ns)
			err := c.Create(ctx, obj)
			if err == nil && tc.status != "" {
				status := map[string]any{}
				if err := yaml.Unmarshal([]byte(tc.status), &status); err != nil {
					t.Fatal(err)
				}
				obj.Object["status"] = status
				err = c.Status().Update(ctx, obj)
			}
			if (err != nil) != tc.refused {
				t.Fatalf("write error %v, want refused %v", err, tc.refused)
			}
			if tc.refused && !apierrors.IsInvalid(err) {
				t.Fatalf("refused with %v, want the schema's refusal (Invalid)", err)
			}
			for path, want := range tc.want {
				got, _, _ := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(path, ".")...)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
		})
	}
}
