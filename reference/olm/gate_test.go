package olm

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/probe"
)

// The gate's decisions: the probe profile (002 §Design Details: "When false,
// OLM will not upgrade the operator"; 002 §Test Plan) and the
// operatorcondition profile (docs/upstream.md, seed 002, OLM's order and
// messages), with the gate's flaws.
func TestDecide(t *testing.T) {
	byProbe := Upgrade{From: "foo-operator.v1.0.0", To: "foo-operator.v2.0.0", Gate: ProfileProbe}
	byOC := Upgrade{From: "foo-operator.v1.0.0", To: "foo-operator.v2.0.0", Gate: ProfileOperatorCondition}
	allowed := UpgradeStatus{Phase: PhaseSucceeded, Reason: ReasonUpgradeAllowed, Message: "Upgraded from foo-operator.v1.0.0 to foo-operator.v2.0.0"}
	probePending := func(msg string) UpgradeStatus {
		return UpgradeStatus{Phase: PhasePending, Reason: ReasonProbeNotUpgradeable, Message: msg}
	}
	ocPending := func(msg string) UpgradeStatus {
		return UpgradeStatus{Phase: PhasePending, Reason: ReasonOperatorConditionNotUpgradeable, Message: msg}
	}
	seedSpec := &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{
		{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"},
		{Resource: "bars.example.com", Upgradeable: "Ready"}}}
	blockedProbe := &probe.Probe{Spec: seedSpec, Status: probe.Status{
		Conditions: []metav1.Condition{upgradeableFalse(at(0), 1)},
		ProbeResources: []probe.ResourceStatus{
			{Kind: "foos", Namespace: "default", Name: "foo-example", Reasons: []string{"!Migrating", "UnhealthyDatabase"}},
			{Kind: "foos", Namespace: "default", Name: "quiet", Reasons: []string{"BadConnectivity"}},
			{Kind: "bars", Namespace: "other", Name: "bar", Reasons: []string{"Ready"}}}}}
	blockedProbe.Name = "foo-operator.v1.0.0"
	operatorProbe := func(status metav1.ConditionStatus) *probe.Probe {
		p := &probe.Probe{Spec: &probe.Spec{Manager: probe.ManagerOperator}, Status: probe.Status{Conditions: []metav1.Condition{
			{Type: "Upgradeable", Status: status, Reason: "FooProcess", Message: "The operator is not upgradeable because FooProcess is running"}}}}
		p.Name = "foo-operator.v1.0.0"
		return p
	}
	oc := func(generation int64, overrides, conditions []metav1.Condition) *OperatorCondition {
		return &OperatorCondition{Generation: generation, Overrides: overrides, Conditions: conditions}
	}
	upgradeable := func(status metav1.ConditionStatus, generation int64, message string) []metav1.Condition {
		return []metav1.Condition{{Type: "Upgradeable", Status: status, ObservedGeneration: generation, Message: message}}
	}
	for _, tc := range []struct {
		name  string
		up    Upgrade
		gated Gated
		flaw  GateFlaw
		want  UpgradeStatus
	}{
		{name: "002 §Test Plan: an operator that does not opt in (no Probe) upgrades", up: byProbe, want: allowed},
		{name: "the gate defaults to the probe profile", up: Upgrade{From: byProbe.From, To: byProbe.To},
			gated: Gated{Probe: blockedProbe}, want: probePending("Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
				"foos default/foo-example: !Migrating; bars other/bar: Ready")},
		{name: "Probe Upgradeable False: blocked, naming each blocking CR and its expression", up: byProbe,
			gated: Gated{Probe: blockedProbe}, want: probePending("Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
				"foos default/foo-example: !Migrating; bars other/bar: Ready")},
		{name: "002 §Writing to the Probe Resource Directly: the operator's Upgradeable False blocks, quoted", up: byProbe,
			gated: Gated{Probe: operatorProbe(metav1.ConditionFalse)},
			want: probePending("Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
				"Upgradeable=False: The operator is not upgradeable because FooProcess is running")},
		{name: "the operator's Upgradeable True upgrades", up: byProbe, gated: Gated{Probe: operatorProbe(metav1.ConditionTrue)}, want: allowed},
		{name: "Upgradeable Unknown upgrades (cannot be calculated)", up: byProbe, gated: Gated{Probe: operatorProbe(metav1.ConditionUnknown)}, want: allowed},
		{name: "a Probe without Upgradeable upgrades", up: byProbe, gated: Gated{Probe: &probe.Probe{}}, want: allowed},
		{name: "the probe profile reads no OperatorCondition", up: byProbe,
			gated: Gated{OperatorCondition: oc(1, nil, upgradeable(metav1.ConditionFalse, 1, "no"))}, want: allowed},
		{name: "flaw ignores-probe: never blocks", up: byProbe, gated: Gated{Probe: blockedProbe}, flaw: IgnoresProbe, want: allowed},
		{name: "flaw unknown-blocks: Unknown blocks", up: byProbe, gated: Gated{Probe: operatorProbe(metav1.ConditionUnknown)}, flaw: UnknownBlocks,
			want: probePending("Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: " +
				"Upgradeable=Unknown: The operator is not upgradeable because FooProcess is running")},

		{name: "docs/upstream.md, seed 002: no OperatorCondition upgrades", up: byOC, want: allowed},
		{name: "override True decides alone", up: byOC,
			gated: Gated{OperatorCondition: oc(2, upgradeable(metav1.ConditionTrue, 0, "go"), upgradeable(metav1.ConditionFalse, 2, "Migrating"))},
			want:  allowed},
		{name: "override False blocks", up: byOC,
			gated: Gated{OperatorCondition: oc(2, upgradeable(metav1.ConditionFalse, 0, "Admin says wait"), upgradeable(metav1.ConditionTrue, 2, ""))},
			want:  ocPending("operator is not upgradeable: the operator is not upgradeable: Admin says wait")},
		{name: "override Unknown blocks", up: byOC,
			gated: Gated{OperatorCondition: oc(2, upgradeable(metav1.ConditionUnknown, 0, "Not sure"), nil)},
			want:  ocPending("operator is not upgradeable: the operator is not upgradeable: Not sure")},
		{name: "a stale observedGeneration blocks", up: byOC,
			gated: Gated{OperatorCondition: oc(3, nil, upgradeable(metav1.ConditionTrue, 2, ""))},
			want:  ocPending(`operator is not upgradeable: the operatorcondition status "Upgradeable"="True" is outdated`)},
		{name: "False blocks with its message", up: byOC,
			gated: Gated{OperatorCondition: oc(2, nil, upgradeable(metav1.ConditionFalse, 2, "Migrating the database"))},
			want:  ocPending("operator is not upgradeable: the operator is not upgradeable: Migrating the database")},
		{name: "True upgrades", up: byOC, gated: Gated{OperatorCondition: oc(2, nil, upgradeable(metav1.ConditionTrue, 2, ""))}, want: allowed},
		{name: "Unknown upgrades", up: byOC, gated: Gated{OperatorCondition: oc(2, nil, upgradeable(metav1.ConditionUnknown, 2, ""))}, want: allowed},
		{name: "no Upgradeable condition upgrades", up: byOC, gated: Gated{OperatorCondition: oc(2, nil, nil)}, want: allowed},
		{name: "the operatorcondition profile reads no Probe", up: byOC, gated: Gated{Probe: blockedProbe}, want: allowed},
		{name: "flaw ignores-probe: an OperatorCondition False does not block either", up: byOC, flaw: IgnoresProbe,
			gated: Gated{OperatorCondition: oc(2, nil, upgradeable(metav1.ConditionFalse, 2, "no"))}, want: allowed},
		{name: "flaw ignores-override: the status decides over an override True", up: byOC, flaw: IgnoresOverride,
			gated: Gated{OperatorCondition: oc(2, upgradeable(metav1.ConditionTrue, 0, "go"), upgradeable(metav1.ConditionFalse, 2, "Migrating"))},
			want:  ocPending("operator is not upgradeable: the operator is not upgradeable: Migrating")},
		{name: "flaw ignores-override: an override False is not read", up: byOC, flaw: IgnoresOverride,
			gated: Gated{OperatorCondition: oc(2, upgradeable(metav1.ConditionFalse, 0, "wait"), nil)}, want: allowed},
		{name: "flaw ignores-generation: a stale True upgrades", up: byOC, flaw: IgnoresGeneration,
			gated: Gated{OperatorCondition: oc(3, nil, upgradeable(metav1.ConditionTrue, 2, ""))}, want: allowed},
		{name: "flaw unknown-blocks: Unknown blocks", up: byOC, flaw: UnknownBlocks,
			gated: Gated{OperatorCondition: oc(2, nil, upgradeable(metav1.ConditionUnknown, 2, "Still checking"))},
			want:  ocPending("operator is not upgradeable: the operator is not upgradeable: Still checking")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decide(tc.up, tc.gated, tc.flaw)
			if err != nil || got != tc.want {
				t.Errorf("got %+v (%v)\nwant %+v", got, err, tc.want)
			}
		})
	}
	if _, err := Decide(Upgrade{To: "x", Gate: "csv"}, Gated{}, ""); err == nil {
		t.Error("an unknown gate was decided")
	}
}

// Every flaw has its one-line description, for the registry of broken
// subjects; the reference has none.
func TestFlawsAreDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range AggregatorFlaws() {
		if f.Description() == "" || seen[string(f)] {
			t.Errorf("aggregator flaw %q: undescribed or listed twice", f)
		}
		seen[string(f)] = true
	}
	for _, f := range GateFlaws() {
		if f.Description() == "" || seen[string(f)] {
			t.Errorf("gate flaw %q: undescribed or listed twice", f)
		}
		seen[string(f)] = true
	}
	if AggregatorFlaw("").Description() != "" || GateFlaw("").Description() != "" {
		t.Error("the reference has a flaw's description")
	}
	if len(AggregatorFlaws()) != 16 || len(GateFlaws()) != 7 {
		t.Errorf("%d aggregator and %d gate flaws, want 16 and 7", len(AggregatorFlaws()), len(GateFlaws()))
	}
}

// The GVKs the lead wires the watches with.
func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		got  schema.GroupVersionKind
		want string
	}{
		{ProbeGVK, "operators.coreos.com/v1alpha1, Kind=Probe"},
		{UpgradeGVK, "opcert.io/v1alpha1, Kind=Upgrade"},
		{OperatorConditionGVK, "operators.coreos.com/v2, Kind=OperatorCondition"},
	} {
		if tc.got.String() != tc.want {
			t.Errorf("%s, want %s", tc.got, tc.want)
		}
	}
}
