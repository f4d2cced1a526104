package stackable

import (
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFlawsListed(t *testing.T) {
	all := Flaws()
	if len(all) != 18 {
		t.Errorf("%d flaws, want 18: %v", len(all), all)
	}
	for _, f := range all {
		if f.Description() == "" {
			t.Errorf("%s has no description", f)
		}
	}
	if Flaw("").Description() != "" || Flaw("no-such").Description() != "" {
		t.Error("the reference or an unknown flaw has a description")
	}
}

// Each status flaw of the core differs from the reference in the case it
// breaks, and only in the condition it breaks (the adapter's flaws,
// writes-while-paused, stop-keeps-replicas, desired-from-workload, slow and late,
// are shown on a real API server in package apitest).
func TestStatusFlaws(t *testing.T) {
	lost := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 2, Pods: pods("c-server-1", "Unknown")}}
	failed := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 2, Pods: pods("c-server-1", "Failed")}}
	stopped := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 0, AvailableReplicas: 0}}
	stop := Cluster{Command: CommandStopped}
	surplus := []WorkloadState{{Kind: Deployment, Name: "c-web", Replicas: 1, AvailableReplicas: 3}}
	mixed := []WorkloadState{{Kind: DaemonSet, Name: "c-agent", Replicas: 2, AvailableReplicas: 1, Pods: pods("c-agent-a", "Unknown")},
		{Kind: Deployment, Name: "c-web", Replicas: 2, AvailableReplicas: 1, Pods: pods("c-web-x", "Failed")}}
	for _, tc := range []struct {
		flaw    Flaw
		cluster Cluster
		ws      []WorkloadState
		differ  map[string]metav1.ConditionStatus // the types whose status the flaw changes, to what
	}{
		{IgnoresUnknown, Cluster{}, lost, map[string]metav1.ConditionStatus{TypeAvailable: metav1.ConditionFalse, TypeDegraded: metav1.ConditionFalse}},
		{NeverDegraded, Cluster{}, failed, map[string]metav1.ConditionStatus{TypeDegraded: metav1.ConditionFalse}},
		{ProgressingWhenAvailable, Cluster{}, healthy, map[string]metav1.ConditionStatus{TypeProgressing: metav1.ConditionTrue}},
		{SurplusAvailable, Cluster{}, surplus, map[string]metav1.ConditionStatus{TypeAvailable: metav1.ConditionTrue}},
		{MergesPerWorkload, Cluster{}, mixed, map[string]metav1.ConditionStatus{TypeAvailable: metav1.ConditionFalse}},
		{StoppedAvailable, stop, stopped, map[string]metav1.ConditionStatus{TypeAvailable: metav1.ConditionTrue}},
		{SilentPause, Cluster{Command: CommandPaused}, lost, map[string]metav1.ConditionStatus{TypePaused: metav1.ConditionFalse}},
	} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			ref := Table(ClusterState{Cluster: tc.cluster, Workloads: tc.ws})
			got := Table(ClusterState{Cluster: tc.cluster, Workloads: tc.ws, Flaw: tc.flaw})
			for i := range ref {
				want, changes := tc.differ[ref[i].Type]
				switch {
				case changes && (got[i].Status != want || ref[i].Status == want):
					t.Errorf("%s: reference %s, flawed %s, want the flaw to give %s", ref[i].Type, ref[i].Status, got[i].Status, want)
				case !changes && !reflect.DeepEqual(got[i], ref[i]):
					t.Errorf("%s: flawed %+v, reference %+v", ref[i].Type, got[i], ref[i])
				}
			}
		})
	}
}

func TestTimeFlaws(t *testing.T) {
	t1 := at0.Add(time.Minute)
	first, _ := Status(ClusterState{Workloads: healthy}, nil, at0)
	lost := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 2, Pods: pods("c-server-1", "Unknown")}}

	moved, _ := Status(ClusterState{Workloads: lost, Flaw: MovingTransition}, first, t1)
	if c := find(moved, TypeStopped); c.LastTransitionTime.Time != t1 {
		t.Errorf("moving-transition: Stopped, whose status stayed, has transition %v, want it moved to %v", c.LastTransitionTime, t1)
	}
	if _, write := Status(ClusterState{Workloads: healthy, Flaw: MovingTransition}, first, t1); write {
		t.Error("moving-transition wrote without a change")
	}

	untimed, _ := Status(ClusterState{Workloads: lost, Flaw: NoTransitionTime}, first, t1)
	if slices.ContainsFunc(untimed, func(c Condition) bool { return !c.LastTransitionTime.IsZero() }) {
		t.Errorf("no-transition-time wrote a transition time: %+v", untimed)
	}
	sentences, _ := Status(ClusterState{Workloads: lost, Flaw: SentenceReasons}, first, t1)
	if c := find(sentences, TypeAvailable); c.Reason != c.Message {
		t.Errorf("sentence-reasons: Available's reason %q, want its message %q", c.Reason, c.Message)
	}

	verbatim, _ := Status(ClusterState{Workloads: lost, Flaw: VerbatimExamples}, first, t1)
	if c := find(verbatim, TypeAvailable); c.Message != MessageUnknown {
		t.Errorf("verbatim-examples: Available says %q, want the example %q", c.Message, MessageUnknown)
	}

	bare, _ := Status(ClusterState{Workloads: lost, Flaw: NoProbeTime}, first, t1)
	if slices.ContainsFunc(bare, func(c Condition) bool { return !c.LastProbeTime.IsZero() }) {
		t.Errorf("no-probe-time wrote a probe time: %+v", bare)
	}
}
