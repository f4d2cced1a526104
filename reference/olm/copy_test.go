package olm

import (
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// docs/upstream.md, seed 002: OLM copies an OperatorCondition's
// spec.conditions to its status, stamping observedGeneration.
func TestCopyConditions(t *testing.T) {
	c := func(typ string, status metav1.ConditionStatus, message string, since time.Time, gen int64) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: "Because", Message: message,
			LastTransitionTime: metav1.NewTime(since), ObservedGeneration: gen}
	}
	zero := time.Time{}
	for _, tc := range []struct {
		name         string
		spec, status []metav1.Condition
		generation   int64
		want         []metav1.Condition
		changed      bool
	}{
		{name: "nothing in the spec: nothing to copy"},
		{name: "a new condition is copied with the generation and its own time",
			spec: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(time.Second), 0)}, generation: 2,
			want: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(time.Second), 2)}, changed: true},
		{name: "a condition without a time is stamped with now",
			spec: []metav1.Condition{c("Upgradeable", "False", "Migrating", zero, 0)}, generation: 1,
			want: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(time.Minute), 1)}, changed: true},
		{name: "already copied at this generation: nothing to write",
			spec:   []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 0)},
			status: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2)}, generation: 2,
			want: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2)}},
		{name: "a new generation: the message follows, the time stays with the status",
			spec:   []metav1.Condition{c("Upgradeable", "False", "Still migrating", at(30*time.Second), 0)},
			status: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2)}, generation: 3,
			want: []metav1.Condition{c("Upgradeable", "False", "Still migrating", at(0), 3)}, changed: true},
		{name: "a status change moves the time",
			spec:   []metav1.Condition{c("Upgradeable", "True", "Done", at(30*time.Second), 0)},
			status: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2)}, generation: 3,
			want: []metav1.Condition{c("Upgradeable", "True", "Done", at(30*time.Second), 3)}, changed: true},
		{name: "a status condition gone from the spec is kept, as OLM keeps it",
			spec:   []metav1.Condition{c("Other", "True", "", at(0), 0)},
			status: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2)}, generation: 3,
			want: []metav1.Condition{c("Upgradeable", "False", "Migrating", at(0), 2), c("Other", "True", "", at(0), 3)}, changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := CopyConditions(tc.spec, tc.status, tc.generation, at(time.Minute), "")
			if changed != tc.changed || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changed=%t %+v\nwant changed=%t %+v", changed, got, tc.changed, tc.want)
			}
		})
	}
}

// The flaw CopiesStatusOnly leaves a new generation's message uncopied:
// the status keeps the old observedGeneration.
func TestCopyConditionsStatusOnly(t *testing.T) {
	spec := []metav1.Condition{{Type: "Upgradeable", Status: "True", Reason: "Ready", Message: "Ready, data migrated"}}
	status := []metav1.Condition{{Type: "Upgradeable", Status: "True", Reason: "Ready", Message: "Ready", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(at(0))}}
	if got, changed := CopyConditions(spec, status, 2, at(time.Minute), CopiesStatusOnly); changed || !reflect.DeepEqual(got, status) {
		t.Errorf("flawed copy: changed=%t %+v, want the status untouched", changed, got)
	}
	if got, changed := CopyConditions(spec, status, 2, at(time.Minute), ""); !changed || got[0].ObservedGeneration != 2 || got[0].Message != "Ready, data migrated" {
		t.Errorf("reference copy: changed=%t %+v", changed, got)
	}
}

// The copier's other flaws, against the reference on the same new
// generation: each differs from it in the one field it breaks.
func TestCopyConditionsFlaws(t *testing.T) {
	spec := []metav1.Condition{{Type: "Upgradeable", Status: "False", Reason: "Migrating", Message: "Migrating the database"}}
	reference := []metav1.Condition{{Type: "Upgradeable", Status: "False", Reason: "Migrating", Message: "Migrating the database",
		ObservedGeneration: 2, LastTransitionTime: metav1.NewTime(at(time.Minute))}}
	for _, tc := range []struct {
		flaw GateFlaw
		want func(c *metav1.Condition)
	}{
		{flaw: "", want: func(*metav1.Condition) {}},
		{flaw: UnstampedCopy, want: func(c *metav1.Condition) { c.ObservedGeneration = 0 }},
		{flaw: CopiesWithoutMessage, want: func(c *metav1.Condition) { c.Message = "" }},
	} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			want := slices.Clone(reference)
			tc.want(&want[0])
			got, changed := CopyConditions(spec, nil, 2, at(time.Minute), tc.flaw)
			if !changed || !reflect.DeepEqual(got, want) {
				t.Errorf("changed=%t %+v\nwant %+v", changed, got, want)
			}
			// Copied once, the flawed status is stable: no write at every reconcile.
			if _, again := CopyConditions(spec, got, 2, at(2*time.Minute), tc.flaw); again {
				t.Error("a second copy changed the status again")
			}
		})
	}
}
