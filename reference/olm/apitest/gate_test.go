package apitest

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/reference/olm"
)

const next = "foo-operator.v2.0.0"

// upgrade asks for the upgrade from csv to next through gate ("": the
// CRD's default).
func (h *harness) upgrade(gate olm.Profile) client.ObjectKey {
	h.t.Helper()
	spec := map[string]any{"from": csv, "to": next}
	if gate != "" {
		spec["gate"] = string(gate)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(olm.UpgradeGVK)
	u.SetNamespace(h.ns)
	u.SetName(next)
	if err := api.Client.Create(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
	return client.ObjectKeyFromObject(u)
}

// upgradeStatus is the Upgrade's status as "Phase Reason: message".
func (h *harness) upgradeStatus(key client.ObjectKey) string {
	h.t.Helper()
	u := h.get(olm.UpgradeGVK, key)
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	reason, _, _ := unstructured.NestedString(u.Object, "status", "reason")
	message, _, _ := unstructured.NestedString(u.Object, "status", "message")
	return phase + " " + reason + ": " + message
}

// 002 §Design Details, profile probe: an upgrade waits while the Probe of
// the current CSV says Upgradeable False and goes once it turns True; the
// Probe's watch maps to the pending Upgrade; Succeeded is final. The
// aggregator writes the Probe from the seed's CR.
func TestGateProbe(t *testing.T) {
	h := start(t, "olm-gate-probe")
	h.annotate(foos, seedAnnotations)
	h.foo(h.ns, "foo-example", seedCR...)
	agg := h.aggregator(h.ns)
	h.reconcile(agg, h.key())
	gate := olm.NewGate(api.Client, h.clk, olm.GateOptions{Namespace: h.ns})
	up := h.upgrade(olm.ProfileProbe)
	h.reconcile(gate, up)
	want := "Pending ProbeNotUpgradeable: Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
		"foos olm-gate-probe/foo-example: !Migrating"
	if got := h.upgradeStatus(up); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}

	h.after(time.Minute)
	moved := h.foo(h.ns, "foo-example", "Migrating=False")
	agg.Map(h.ctx, moved)
	h.reconcile(agg, h.key())
	u := h.get(olm.ProbeGVK, h.key())
	if reqs := gate.Map(h.ctx, u); len(reqs) != 1 || reqs[0].NamespacedName != up {
		t.Fatalf("Map of the Probe asked for %v, want the Upgrade", reqs)
	}
	h.reconcile(gate, up)
	if got, want := h.upgradeStatus(up), "Succeeded UpgradeAllowed: Upgraded from foo-operator.v1.0.0 to foo-operator.v2.0.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	h.foo(h.ns, "foo-example", seedCR...)
	agg.Map(h.ctx, moved)
	h.reconcile(agg, h.key())
	if reqs := gate.Map(h.ctx, u); len(reqs) != 0 {
		t.Errorf("Map asked for a Succeeded Upgrade: %v", reqs)
	}
	h.reconcile(gate, up)
	if got := h.upgradeStatus(up); got[:len("Succeeded")] != "Succeeded" {
		t.Errorf("a Succeeded upgrade moved: %q", got)
	}
}

// The operatorcondition profile (docs/upstream.md, seed 002) with OLM's
// copier: the operator's spec condition False blocks once copied; its change
// to True is "outdated" until the copier stamps the new generation, then the
// upgrade goes.
func TestGateOperatorCondition(t *testing.T) {
	h := start(t, "olm-gate-oc")
	gate := olm.NewGate(api.Client, h.clk, olm.GateOptions{Namespace: h.ns})
	copier := olm.NewCopier(api.Client, h.clk, "")
	up := h.upgrade(olm.ProfileOperatorCondition)

	oc := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"conditions": []any{
		map[string]any{"type": "Upgradeable", "status": "False", "reason": "Migrating", "message": "Migrating the database",
			"lastTransitionTime": "2026-01-01T00:00:00Z"}}}}}
	oc.SetGroupVersionKind(olm.OperatorConditionGVK)
	oc.SetNamespace(h.ns)
	oc.SetName(csv)
	if err := api.Client.Create(h.ctx, oc); err != nil {
		t.Fatal(err)
	}
	h.reconcile(copier, h.key())
	copied := h.get(olm.OperatorConditionGVK, h.key())
	conds, _, _ := unstructured.NestedSlice(copied.Object, "status", "conditions")
	if len(conds) != 1 || conds[0].(map[string]any)["observedGeneration"] != copied.GetGeneration() {
		t.Fatalf("status.conditions %v, want the spec's stamped with generation %d", conds, copied.GetGeneration())
	}
	if reqs := gate.Map(h.ctx, copied); len(reqs) != 1 || reqs[0].NamespacedName != up {
		t.Fatalf("Map of the OperatorCondition asked for %v, want the Upgrade", reqs)
	}
	h.reconcile(gate, up)
	if got, want := h.upgradeStatus(up), "Pending OperatorConditionNotUpgradeable: operator is not upgradeable: "+
		"the operator is not upgradeable: Migrating the database"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}

	h.after(time.Minute)
	if err := unstructured.SetNestedSlice(copied.Object, []any{map[string]any{"type": "Upgradeable", "status": "True",
		"reason": "Done", "message": "Migrated", "lastTransitionTime": "2026-01-01T00:01:00Z"}}, "spec", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := api.Client.Update(h.ctx, copied); err != nil {
		t.Fatal(err)
	}
	h.reconcile(gate, up)
	if got, want := h.upgradeStatus(up), `Pending OperatorConditionNotUpgradeable: operator is not upgradeable: `+
		`the operatorcondition status "Upgradeable"="False" is outdated`; got != want {
		t.Errorf("before the copy: got %q\nwant %q", got, want)
	}
	h.reconcile(copier, h.key())
	h.reconcile(gate, up)
	if got, want := h.upgradeStatus(up), "Succeeded UpgradeAllowed: Upgraded from foo-operator.v1.0.0 to foo-operator.v2.0.0"; got != want {
		t.Errorf("after the copy: got %q, want %q", got, want)
	}
}

// The probe profile with an operator's own Probe (002 §Writing to the
// Probe Resource Directly): its Upgradeable False blocks, quoted; the
// Upgrade names no gate, and the CRD's default is the probe's.
func TestGateOperatorsProbe(t *testing.T) {
	h := start(t, "olm-gate-own")
	h.writeProbe(&probe.Spec{Manager: probe.ManagerOperator}, probe.Status{Conditions: []metav1.Condition{{Type: "Upgradeable",
		Status: metav1.ConditionFalse, Reason: "FooProcess", Message: "The operator is not upgradeable because FooProcess is running",
		LastTransitionTime: metav1.NewTime(h.clk.Now())}}})
	up := h.upgrade("")
	h.reconcile(olm.NewGate(api.Client, h.clk, olm.GateOptions{Namespace: h.ns}), up)
	want := "Pending ProbeNotUpgradeable: Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
		"Upgradeable=False: The operator is not upgradeable because FooProcess is running"
	if got := h.upgradeStatus(up); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
