package faithful

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A requeueing variant looks its latency after a change; a resyncing one
// at the next instant of its grid, at once when the change falls on it.
func TestLook(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		v    Variant
		at   time.Duration
		want time.Duration
	}{
		{"requeue", Requeue, 7 * time.Second, 27 * time.Second},
		{"resync, between", Resync, 7 * time.Second, 25 * time.Second},
		{"resync, on the grid", Resync, 50 * time.Second, 50 * time.Second},
	} {
		if got := tc.v.look(t0.Add(tc.at)).Sub(t0); got != tc.want {
			t.Errorf("%s: a change at +%s looked at +%s, want +%s", tc.name, tc.at, got, tc.want)
		}
	}
}

// An installation counts as rolled out on the variant's share of a
// DaemonSet's nodes, never with a Deployment short of its replicas or a
// pod of another version; complete asks every node and every pod ready.
func TestShare(t *testing.T) {
	nodes := []string{"a", "b", "c"}
	agent := func(ready ...bool) *seen {
		w := &seen{Operand: Operand{Kind: "DaemonSet", Name: "agent"}, asks: "1"}
		for i, r := range ready {
			w.pods = append(w.pods, podSeen{name: nodes[i], node: nodes[i], version: "1", ready: r})
		}
		return w
	}
	server := &seen{Operand: Operand{Kind: "Deployment", Name: "server", Replicas: 2}, asks: "1",
		pods: []podSeen{{name: "s0", version: "1", ready: true}, {name: "s1", version: "1", ready: false}}}
	for _, tc := range []struct {
		name                string
		o                   observed
		twoThirds, complete bool
	}{
		{"every node", observed{workloads: []*seen{agent(true, true, true)}, nodes: nodes}, true, true},
		{"two nodes of three", observed{workloads: []*seen{agent(true, true, false)}, nodes: nodes}, true, false},
		{"one node of three", observed{workloads: []*seen{agent(true, false, false)}, nodes: nodes}, false, false},
		{"a Deployment short of a replica", observed{workloads: []*seen{agent(true, true, true), server}, nodes: nodes}, false, false},
	} {
		if got := tc.o.share("1", 2, 3); got != tc.twoThirds {
			t.Errorf("%s: two thirds %v, want %v", tc.name, got, tc.twoThirds)
		}
		if got := tc.o.complete("1"); got != tc.complete {
			t.Errorf("%s: complete %v, want %v", tc.name, got, tc.complete)
		}
	}
}

// Progress is what the rules count as progress: a pod at the target
// coming or changing readiness, a pod of another version going, a spec
// written; an old pod turning unready is none.
func TestMemory(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	look := func(pods ...podSeen) observed {
		return observed{workloads: []*seen{{Operand: Operand{Kind: "Deployment", Name: "s", Replicas: 1}, asks: "2", pods: pods}}}
	}
	var m memory
	m.note(look(podSeen{name: "old", version: "1", ready: true}), "2", false, t0, time.Time{})
	for i, tc := range []struct {
		name  string
		o     observed
		moved bool
	}{
		{"the old pod turns unready", look(podSeen{name: "old", version: "1"}), false},
		{"a new pod comes", look(podSeen{name: "old", version: "1"}, podSeen{name: "new", version: "2"}), true},
		{"nothing changes", look(podSeen{name: "old", version: "1"}, podSeen{name: "new", version: "2"}), false},
		{"the new pod turns ready", look(podSeen{name: "old", version: "1"}, podSeen{name: "new", version: "2", ready: true}), true},
		{"the old pod goes", look(podSeen{name: "new", version: "2", ready: true}), true},
	} {
		now := t0.Add(time.Duration(i+1) * time.Minute)
		m.note(tc.o, "2", false, now, time.Time{})
		if got := m.progress.Equal(now); got != tc.moved {
			t.Errorf("%s: moved %v, want %v", tc.name, got, tc.moved)
		}
	}
}

// A refused operand write is failing at once for Requeue, in its own
// words; for Resync only once the rollout has stalled, and then the
// stall's detail names the refused write.
func TestRefused(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := observed{refused: []string{"DaemonSet agent (boom)"}, workloads: []*seen{
		{Operand: Operand{Kind: "DaemonSet", Name: "agent"}, asks: "1", pods: []podSeen{{name: "a", node: "n", version: "1", ready: true}}}}, nodes: []string{"n"}}
	old := configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: operatorEntry, Version: "1"}}}
	for _, tc := range []struct {
		name      string
		v         Variant
		after     time.Duration
		condition configv1.ClusterStatusConditionType
		status    configv1.ConditionStatus
		says      string
	}{
		{"requeue, at once", Requeue, 0, configv1.OperatorDegraded, configv1.ConditionTrue, "refused to update DaemonSet agent (boom)"},
		{"resync, before its stall", Resync, stuckAfter - time.Second, "Failing", configv1.ConditionFalse, ""},
		{"resync, at its stall", Resync, stuckAfter, "Failing", configv1.ConditionTrue, "refused these writes: DaemonSet agent (boom)"},
	} {
		m := memory{}
		m.note(o, "2", false, t0, time.Time{})
		st, _ := tc.v.status(Setup{Name: "x"}, old, o, &m, "2", t0.Add(tc.after))
		c := conditionOf(st.Conditions, tc.condition)
		if c.Status != tc.status || !strings.Contains(c.Message, tc.says) {
			t.Errorf("%s: %s %s %q, want %s saying %q", tc.name, tc.condition, c.Status, c.Message, tc.status, tc.says)
		}
	}
}

// A restarted instance reads the stall its status says and stays stalled
// (CO-008: until the rollout progresses), where it would count one anew.
func TestStallSurvivesRestart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := observed{workloads: []*seen{{Operand: Operand{Kind: "Deployment", Name: "s", Replicas: 2}, asks: "2",
		pods: []podSeen{{name: "a", version: "2", ready: true}, {name: "b", version: "2"}}}}}
	old := configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: operatorEntry, Version: "1"}}}
	for _, v := range []Variant{Requeue, Resync} {
		var before memory
		before.note(o, "2", false, t0, time.Time{})
		at := t0.Add(stuckAfter)
		st, _ := v.status(Setup{Name: "x"}, old, o, &before, "2", at)
		for i := range st.Conditions {
			st.Conditions[i].LastTransitionTime = metav1.NewTime(at)
		}
		since := v.stalledSince(*st, "2")
		if !since.Equal(at) {
			t.Fatalf("%s: stalled since %v, want %v", v.Words.ReasonStalled, since, at)
		}
		var after memory
		after.note(o, "2", false, at.Add(time.Minute), since)
		again, _ := v.status(Setup{Name: "x"}, *st, o, &after, "2", at.Add(time.Minute))
		if again != nil && v.stalledSince(*again, "2").IsZero() {
			t.Errorf("%s: the restarted instance no longer says the stall: %+v", v.Words.ReasonStalled, again.Conditions)
		}
		var fresh memory
		fresh.note(o, "2", false, at.Add(time.Minute), time.Time{})
		if !fresh.progress.Equal(at.Add(time.Minute)) {
			t.Errorf("%s: with no stall said, a new instance counts from its first look", v.Words.ReasonStalled)
		}
	}
}
