package apitest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/reference/olm"
	"github.com/opcert/opcert/sim/timeline"
)

// aggregator is a reference aggregator of the test's Probe over foos and
// bars, counting the CRs of namespaces.
func (h *harness) aggregator(namespaces ...string) *olm.Aggregator {
	h.t.Helper()
	a, err := olm.NewAggregator(api.Client, h.clk, olm.AggregatorOptions{
		Probe: types.NamespacedName{Namespace: h.ns, Name: csv}, CRDs: []string{foos, bars}, Namespaces: namespaces})
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

func (h *harness) key() client.ObjectKey { return client.ObjectKey{Namespace: h.ns, Name: csv} }

// 002 §Example Workflow: the aggregator creates the Probe from the
// annotated CRDs, follows an annotation change, overrides a hand-edited
// spec, and keeps the Probe, with no resource, once no annotation is left.
func TestAggregatorKeepsTheSpec(t *testing.T) {
	h := start(t, "olm-spec")
	a := h.aggregator(h.ns)
	h.reconcile(a, h.key())
	if p, _ := h.probe(); p != nil {
		t.Fatalf("a Probe without any annotation: %+v", p)
	}

	h.annotate(foos, seedAnnotations)
	h.reconcile(a, h.key())
	p, _ := h.probe()
	want := &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{
		{Resource: foos, Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"}}}
	if p == nil || !reflect.DeepEqual(p.Spec, want) {
		t.Fatalf("created Probe %+v, want spec %+v", p, want)
	}
	if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c == nil || c.Status != metav1.ConditionTrue ||
		!c.LastTransitionTime.Time.Equal(timeline.Epoch) || c.ObservedGeneration != p.Generation {
		t.Errorf("Upgradeable %+v, want True since the start, at generation %d", c, p.Generation)
	}

	h.annotate(bars, map[string]string{keyImportant: "Broken"})
	h.annotate(foos, map[string]string{keyUpgradeable: "Ready"})
	h.reconcile(a, h.key())
	p, _ = h.probe()
	want = &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{
		{Resource: bars, Important: "Broken"}, {Resource: foos, Upgradeable: "Ready"}}}
	if !reflect.DeepEqual(p.Spec, want) {
		t.Errorf("after the annotations changed: %+v, want %+v", p.Spec, want)
	}

	u := h.get(olm.ProbeGVK, h.key())
	u.Object["spec"] = map[string]any{"manager": "crdAnnotations", "probeResources": []any{map[string]any{"resource": foos, "upgradeable": "Anything"}}}
	if err := api.Client.Update(h.ctx, u); err != nil {
		t.Fatal(err)
	}
	h.reconcile(a, h.key())
	if p, _ = h.probe(); !reflect.DeepEqual(p.Spec, want) {
		t.Errorf("a hand-edited spec was not overridden: %+v", p.Spec)
	}

	h.annotate(foos, nil)
	h.annotate(bars, nil)
	h.reconcile(a, h.key())
	p, _ = h.probe()
	if p == nil || p.Spec == nil || p.Spec.ProbeResources == nil || len(p.Spec.ProbeResources) != 0 {
		t.Errorf("with no annotation left: %+v, want the Probe with an empty list", p)
	}
}

// 002 §Writing to the Probe Resource Directly, and 002 §Example Workflow's
// note: a Probe whose manager is operator, or whose spec is nil, is never
// written by the aggregator.
func TestAggregatorLeavesOthersProbes(t *testing.T) {
	h := start(t, "olm-hands-off")
	h.annotate(foos, seedAnnotations)
	operatorsStatus := probe.Status{Conditions: []metav1.Condition{{Type: "Upgradeable", Status: metav1.ConditionFalse,
		Reason: "FooProcess", Message: "The operator is not upgradeable because FooProcess is running",
		LastTransitionTime: metav1.NewTime(timeline.Epoch)}}}
	h.writeProbe(&probe.Spec{Manager: probe.ManagerOperator}, operatorsStatus)
	h.foo(h.ns, "foo-example", seedCR...)
	_, rv := h.probe()
	a := h.aggregator(h.ns)
	h.after(time.Minute)
	h.reconcile(a, h.key())
	if _, after := h.probe(); after != rv {
		t.Error("the aggregator wrote a Probe whose manager is operator")
	}

	nilSpec := start(t, "olm-nil-spec")
	nilSpec.writeProbe(nil, probe.Status{})
	nilSpec.foo(nilSpec.ns, "foo-example", seedCR...)
	_, rv = nilSpec.probe()
	nilSpec.reconcile(nilSpec.aggregator(nilSpec.ns), nilSpec.key())
	if p, after := nilSpec.probe(); after != rv {
		t.Errorf("the aggregator wrote a Probe whose spec is nil: %+v", p)
	}
}

// 002 §Example Workflow end to end: the seed's CR gives the seed's status;
// Migrating turning False unblocks (Upgradeable moves, the reasons
// follow); a deleted CR is dropped; a CR outside the target namespaces
// never counts; a reconcile with nothing new writes nothing.
func TestAggregatorFollowsTheCRs(t *testing.T) {
	h := start(t, "olm-crs")
	h.namespace("olm-crs-elsewhere")
	h.annotate(foos, seedAnnotations)
	h.foo(h.ns, "foo-example", seedCR...)
	h.foo("olm-crs-elsewhere", "outside", seedCR...)
	a := h.aggregator(h.ns)
	h.reconcile(a, h.key())
	p, rv := h.probe()
	seedReasons := []probe.ResourceStatus{{Kind: "foos", Name: "foo-example", Namespace: h.ns,
		Reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}}}
	if !reflect.DeepEqual(p.Status.ProbeResources, seedReasons) {
		t.Errorf("probeResources %+v, want the seed's %+v", p.Status.ProbeResources, seedReasons)
	}
	if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != "NotUpgradeable" || c.Message != "The operator has communicated that the operator is not upgradeable" {
		t.Errorf("Upgradeable %+v, want the seed's False", c)
	}
	if c := find(p.Status.Conditions, olm.ConditionProbeValid); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ProbeValid %+v, want True", c)
	}

	h.after(time.Minute)
	h.reconcile(a, h.key())
	if _, again := h.probe(); again != rv {
		t.Error("a reconcile with nothing new wrote the Probe")
	}

	h.after(2 * time.Minute)
	moved := h.foo(h.ns, "foo-example", "Migrating=False", "UnhealthyDatabase=True", "BadConnectivity=True", "SomethingUnrelated=True")
	if reqs := a.Map(h.ctx, moved); len(reqs) != 1 || reqs[0].NamespacedName != h.key() {
		t.Fatalf("Map of a CR asked for %v, want the Probe", reqs)
	}
	h.reconcile(a, h.key())
	p, _ = h.probe()
	if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c == nil || c.Status != metav1.ConditionTrue ||
		!c.LastTransitionTime.Time.Equal(timeline.Epoch.Add(2*time.Minute)) {
		t.Errorf("Upgradeable %+v, want True since +2m", c)
	}
	if len(p.Status.ProbeResources) != 1 || !slices.Equal(p.Status.ProbeResources[0].Reasons, []string{"UnhealthyDatabase", "BadConnectivity"}) {
		t.Errorf("probeResources %+v, want the two Important reasons", p.Status.ProbeResources)
	}
	if c := find(p.Status.Conditions, olm.ConditionProbeValid); c == nil || !c.LastTransitionTime.Time.Equal(timeline.Epoch) {
		t.Errorf("ProbeValid %+v moved without a change of status", c)
	}

	h.after(3 * time.Minute)
	if err := api.Client.Delete(h.ctx, moved); err != nil {
		t.Fatal(err)
	}
	a.Map(h.ctx, moved)
	h.reconcile(a, h.key())
	if p, _ = h.probe(); len(p.Status.ProbeResources) != 0 {
		t.Errorf("a deleted CR is still listed: %+v", p.Status.ProbeResources)
	}

	// A new process starts afresh: its list finds the same.
	h.reconcile(h.aggregator(h.ns), h.key())
	if again, _ := h.probe(); !reflect.DeepEqual(again.Status, p.Status) {
		t.Errorf("a restarted aggregator changed the status: %+v", again.Status)
	}
}

// An expression that does not parse: ProbeValid says where, and the
// resource blocks nothing (decision 002, conformance/olm/README.md).
func TestAggregatorInvalidExpression(t *testing.T) {
	h := start(t, "olm-invalid")
	h.annotate(foos, map[string]string{keyUpgradeable: "!Migrating &&", keyImportant: "BadConnectivity"})
	h.foo(h.ns, "foo-example", seedCR...)
	h.reconcile(h.aggregator(h.ns), h.key())
	p, _ := h.probe()
	want := `foos.example.com: annotation olm.operatorframework.io/condition.Upgradeable "!Migrating &&": column 14: ` +
		`expected a condition type or '(' or '!', found end of expression`
	if c := find(p.Status.Conditions, olm.ConditionProbeValid); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != "InvalidExpression" || c.Message != want {
		t.Errorf("ProbeValid %+v, want False: %s", c, want)
	}
	if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Upgradeable %+v, want True (the expression cannot be calculated)", c)
	}
	if len(p.Status.ProbeResources) != 1 || !slices.Equal(p.Status.ProbeResources[0].Reasons, []string{"BadConnectivity"}) {
		t.Errorf("probeResources %+v, want the Important reason only", p.Status.ProbeResources)
	}
}

// Kinds are read from the owned CRDs, for the watches.
func TestAggregatorKinds(t *testing.T) {
	h := start(t, "olm-kinds")
	kinds, err := h.aggregator(h.ns).Kinds(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range kinds {
		got = append(got, k.String())
	}
	if want := []string{"example.com/v1, Kind=Foo", "example.com/v1, Kind=Bar"}; !slices.Equal(got, want) {
		t.Errorf("Kinds %q, want %q", got, want)
	}
}

func find(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}
