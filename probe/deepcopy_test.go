package probe

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func full() *Probe {
	return &Probe{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Probe"},
		ObjectMeta: metav1.ObjectMeta{Name: "foo-operator.v1.0.0", Namespace: "operators", Labels: map[string]string{"a": "b"}, Generation: 2},
		Spec: &Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{
			{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"},
		}},
		Status: Status{
			Conditions: []metav1.Condition{{Type: ConditionUpgradeable, Status: metav1.ConditionFalse, Reason: "NotUpgradeable", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}},
			ProbeResources: []ResourceStatus{
				{Kind: "foos", Name: "foo-example", Namespace: "default", Reasons: []string{"!Migrating", "UnhealthyDatabase"}},
			},
		},
	}
}

// A copy is equal to its original and shares nothing with it: changing
// every nested part of the copy leaves the original as it was.
func TestDeepCopyProbe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Probe)
	}{
		{"labels", func(p *Probe) { p.Labels["a"] = "c" }},
		{"spec", func(p *Probe) { p.Spec.Manager = ManagerOperator }},
		{"spec resources", func(p *Probe) { p.Spec.ProbeResources[0].Upgradeable = "Migrating" }},
		{"conditions", func(p *Probe) { p.Status.Conditions[0].Status = metav1.ConditionTrue }},
		{"resource statuses", func(p *Probe) { p.Status.ProbeResources[0].Name = "other" }},
		{"reasons", func(p *Probe) { p.Status.ProbeResources[0].Reasons[1] = "BadConnectivity" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := full()
			cp := orig.DeepCopyObject().(*Probe)
			if !reflect.DeepEqual(cp, orig) {
				t.Fatalf("copy %+v differs from %+v", cp, orig)
			}
			tc.change(cp)
			if !reflect.DeepEqual(orig, full()) {
				t.Errorf("changing the copy's %s changed the original: %+v", tc.name, orig)
			}
		})
	}
}

// The seed tells a nil spec and a nil spec.probeResources from empty ones;
// copies keep the difference.
func TestDeepCopyKeepsNil(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *Probe
	}{
		{"nil spec", &Probe{}},
		{"nil resources", &Probe{Spec: &Spec{Manager: ManagerOperator}}},
		{"empty resources", &Probe{Spec: &Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{}}}},
		{"empty status lists", &Probe{Status: Status{Conditions: []metav1.Condition{}, ProbeResources: []ResourceStatus{{Reasons: []string{}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if cp := tc.in.DeepCopy(); !reflect.DeepEqual(cp, tc.in) {
				t.Errorf("copy %#v differs from %#v", cp, tc.in)
			}
		})
	}
}

func TestDeepCopyList(t *testing.T) {
	orig := &ProbeList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: []Probe{*full(), {}}}
	cp := orig.DeepCopyObject().(*ProbeList)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("copy %+v differs from %+v", cp, orig)
	}
	cp.Items[0].Spec.ProbeResources[0].Resource = "bars.example.com"
	cp.Items[0].Status.Conditions[0].Reason = "Changed"
	if !reflect.DeepEqual(orig.Items[0], *full()) {
		t.Errorf("changing the copy changed the original: %+v", orig.Items[0])
	}
}

func TestDeepCopyNil(t *testing.T) {
	var p *Probe
	var l *ProbeList
	var s *Status
	if p.DeepCopy() != nil || l.DeepCopy() != nil || s.DeepCopy() != nil || p.DeepCopyObject() != nil || l.DeepCopyObject() != nil {
		t.Error("a nil's copy must be nil")
	}
}

func TestDeepCopyStatus(t *testing.T) {
	orig := full().Status
	cp := orig.DeepCopy()
	cp.ProbeResources[0].Reasons[0] = "Migrating"
	if want := full().Status; !reflect.DeepEqual(orig, want) {
		t.Errorf("changing the copy changed the original: %+v", orig)
	}
}
