package olm

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/probe"
)

// cond is a Probe condition as Status writes it.
func cond(typ string, status metav1.ConditionStatus, reason, message string, since time.Time, generation int64) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(since), ObservedGeneration: generation}
}

func upgradeableTrue(since time.Time, gen int64) metav1.Condition {
	return cond(ConditionUpgradeable, metav1.ConditionTrue, ReasonUpgradeable, MessageUpgradeable, since, gen)
}

func upgradeableFalse(since time.Time, gen int64) metav1.Condition {
	return cond(ConditionUpgradeable, metav1.ConditionFalse, ReasonNotUpgradeable, MessageNotUpgradeable, since, gen)
}

func valid(since time.Time, gen int64) metav1.Condition {
	return cond(ConditionProbeValid, metav1.ConditionTrue, ReasonValid, MessageValid, since, gen)
}

// seedEntry is the seed's CR judged by the seed's spec.
func seedEntry(namespace, name string) Entry {
	return Entry{Kind: "foos", Namespace: namespace, Name: name,
		Verdict: Judge(resource("!Migrating", "BadConnectivity || UnhealthyDatabase"), seedCR, ReadingHolds, "")}
}

// Status: 002 §Example Workflow's status from its CR, the order of the
// listed CRs, the conditions' transitions and generations, ProbeValid,
// no write when nothing changed, and the flaws that change a status.
func TestStatus(t *testing.T) {
	seedStatus := probe.Status{
		Conditions: []metav1.Condition{upgradeableFalse(at(0), 1), valid(at(0), 1)},
		ProbeResources: []probe.ResourceStatus{{Kind: "foos", Name: "foo-example", Namespace: "default",
			Reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}}},
	}
	important := Entry{Resource: 1, Kind: "bars", Namespace: "a", Name: "z", Verdict: Verdict{Reasons: []string{"Broken"}}}
	quiet := Entry{Kind: "foos", Namespace: "a", Name: "quiet", Verdict: Verdict{}}
	for _, tc := range []struct {
		name       string
		entries    []Entry
		problems   []string
		prev       probe.Status
		generation int64
		now        time.Time
		flaw       AggregatorFlaw
		want       probe.Status
		changed    bool
	}{
		{name: "002 §Example Workflow: the seed's CR gives the seed's status",
			entries: []Entry{seedEntry("default", "foo-example")}, generation: 1, now: at(0),
			want: seedStatus, changed: true},
		{name: "002 §Test Plan: no CR, not blocked", generation: 1, now: at(0),
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(0), 1), valid(at(0), 1)}}, changed: true},
		{name: "nothing changed: no write", entries: []Entry{seedEntry("default", "foo-example")}, prev: seedStatus,
			generation: 1, now: at(time.Hour), want: seedStatus},
		{name: "a CR without reasons is not listed; listed by resource, namespace, name",
			entries:    []Entry{important, seedEntry("b", "x"), quiet, seedEntry("a", "y"), seedEntry("b", "a")},
			generation: 3, now: at(0), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableFalse(at(0), 3), valid(at(0), 3)},
				ProbeResources: []probe.ResourceStatus{
					{Kind: "foos", Namespace: "a", Name: "y", Reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}},
					{Kind: "foos", Namespace: "b", Name: "a", Reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}},
					{Kind: "foos", Namespace: "b", Name: "x", Reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}},
					{Kind: "bars", Namespace: "a", Name: "z", Reasons: []string{"Broken"}}}}},
		{name: "Important reasons alone do not block", entries: []Entry{important}, generation: 1, now: at(0), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(0), 1), valid(at(0), 1)},
				ProbeResources: []probe.ResourceStatus{{Kind: "bars", Namespace: "a", Name: "z", Reasons: []string{"Broken"}}}}},
		{name: "unblocked: Upgradeable transitions, ProbeValid keeps its time; the generation moves on both",
			entries: []Entry{quiet}, prev: seedStatus, generation: 2, now: at(time.Minute), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(time.Minute), 2), valid(at(0), 2)}}},
		{name: "an expression that does not parse: ProbeValid False with every problem",
			problems: []string{"foos.example.com: one", "bars.example.com: two"}, prev: seedStatus, generation: 1, now: at(time.Minute),
			changed: true, want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(time.Minute), 1),
				cond(ConditionProbeValid, metav1.ConditionFalse, ReasonInvalidExpression,
					"foos.example.com: one; bars.example.com: two", at(time.Minute), 1)}}},
		{name: "a condition of another type is kept",
			prev:       probe.Status{Conditions: []metav1.Condition{cond("Other", metav1.ConditionTrue, "Mine", "", at(0), 0)}},
			generation: 1, now: at(time.Minute), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{cond("Other", metav1.ConditionTrue, "Mine", "", at(0), 0),
				upgradeableTrue(at(time.Minute), 1), valid(at(time.Minute), 1)}}},
		{name: "flaw frozen-reasons: a listed CR keeps its first reasons", flaw: FrozenReasons,
			entries: []Entry{{Kind: "foos", Namespace: "default", Name: "foo-example", Verdict: Verdict{Reasons: []string{"BadConnectivity"}}}},
			prev:    seedStatus, generation: 1, now: at(time.Minute), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(time.Minute), 1), valid(at(0), 1)},
				ProbeResources: seedStatus.ProbeResources}},
		{name: "flaw moving-transition: every time moves on a write", flaw: MovingTransition,
			entries: []Entry{quiet}, prev: seedStatus, generation: 1, now: at(time.Minute), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(time.Minute), 1), valid(at(time.Minute), 1)}}},
		{name: "flaw own-texts: Upgradeable False in its own words", flaw: OwnTexts,
			entries: []Entry{seedEntry("default", "foo-example")}, generation: 1, now: at(0), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{cond(ConditionUpgradeable, metav1.ConditionFalse, "Blocked", "blocked by a custom resource", at(0), 1), valid(at(0), 1)},
				ProbeResources: seedStatus.ProbeResources}},
		{name: "flaw frozen-transition: Upgradeable transitions, its time stays", flaw: FrozenTransition,
			entries: []Entry{quiet}, prev: seedStatus, generation: 1, now: at(time.Minute), changed: true,
			want: probe.Status{Conditions: []metav1.Condition{upgradeableTrue(at(0), 1), valid(at(0), 1)}}},
		{name: "flaw moving-transition: still no write when nothing changed", flaw: MovingTransition,
			entries: []Entry{seedEntry("default", "foo-example")}, prev: seedStatus, generation: 1, now: at(time.Hour), want: seedStatus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Status(tc.entries, tc.problems, tc.prev, tc.generation, tc.now, tc.flaw)
			if changed != tc.changed || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changed=%t\n%+v\nwant changed=%t\n%+v", changed, got, tc.changed, tc.want)
			}
		})
	}
}
