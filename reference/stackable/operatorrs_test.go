package stackable

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The operator-rs profile follows crates/stackable-operator/src/status/
// condition/ (statefulset.rs, deployment.rs, daemonset.rs, mod.rs,
// operations.rs).
func TestOperatorRS(t *testing.T) {
	const (
		pausedNot  = "The cluster is reconciled normally."
		pausedYes  = "The cluster reconciliation is paused. Only the cluster status is reconciled."
		runningMsg = "The cluster is running."
	)
	paused := func(s metav1.ConditionStatus, m string) Condition { return cond(TypeReconciliationPaused, s, "", m) }
	stopped := func(s metav1.ConditionStatus, m string) Condition { return cond(TypeStopped, s, "", m) }
	available := func(s metav1.ConditionStatus, m string) Condition { return cond(TypeAvailable, s, "", m) }
	sts := func(name string, replicas, avail int32) WorkloadState {
		return WorkloadState{Kind: StatefulSet, Name: name, Replicas: replicas, AvailableReplicas: avail}
	}
	for _, tc := range []struct {
		name string
		ws   []WorkloadState
		op   ClusterOperation
		want []Condition
	}{
		{"all replicas available; no Degraded or Progressing, no reason", []WorkloadState{sts("c-server", 3, 3)}, ClusterOperation{},
			[]Condition{available(metav1.ConditionTrue, "All StatefulSet have the requested amount of ready replicas."),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
		{"statefulset.rs: 0 of 0 replicas is not available; the unavailable named sorted, in Rust's debug form",
			[]WorkloadState{sts("c-b", 0, 0), sts("c-a", 3, 1), sts("c-c", 1, 1)}, ClusterOperation{},
			[]Condition{available(metav1.ConditionFalse, `StatefulSet ["c-a", "c-b"] missing ready replicas.`),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
		{"no pod phase is read: a lost pod leaves Available False, never Unknown",
			[]WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 2, Pods: pods("c-server-1", "Unknown")}}, ClusterOperation{},
			[]Condition{available(metav1.ConditionFalse, `StatefulSet ["c-server"] missing ready replicas.`),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
		{"daemonset.rs: available with one ready pod; mod.rs joins equal statuses' messages in the roles' order of kinds",
			[]WorkloadState{{Kind: DaemonSet, Name: "c-agent", Replicas: 3, AvailableReplicas: 1, NumberReady: 1},
				{Kind: Deployment, Name: "c-web", Replicas: 2, AvailableReplicas: 2}}, ClusterOperation{},
			[]Condition{available(metav1.ConditionTrue, "All DaemonSet have the requested amount of ready replicas.\nAll Deployments have the requested amount of ready replicas."),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
		{"mod.rs's update_message: False wins over True",
			[]WorkloadState{{Kind: Deployment, Name: "c-web", Replicas: 2, AvailableReplicas: 2}, {Kind: DaemonSet, Name: "c-agent"}}, ClusterOperation{},
			[]Condition{available(metav1.ConditionFalse, `DaemonSet ["c-agent"] missing ready replicas.`),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
		{"operations.rs: paused", []WorkloadState{sts("c-server", 3, 3)}, ClusterOperation{ReconciliationPaused: true},
			[]Condition{available(metav1.ConditionTrue, "All StatefulSet have the requested amount of ready replicas."),
				paused(metav1.ConditionTrue, pausedYes), stopped(metav1.ConditionFalse, runningMsg)}},
		{"operations.rs: stopped; Available from the counts alone", []WorkloadState{sts("c-server", 0, 0)}, ClusterOperation{Stopped: true},
			[]Condition{available(metav1.ConditionFalse, `StatefulSet ["c-server"] missing ready replicas.`),
				paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionTrue, "The cluster is stopped.")}},
		{"operations.rs: paused and stopped gives Stopped Unknown", []WorkloadState{sts("c-server", 3, 3)}, ClusterOperation{ReconciliationPaused: true, Stopped: true},
			[]Condition{available(metav1.ConditionTrue, "All StatefulSet have the requested amount of ready replicas."),
				paused(metav1.ConditionTrue, pausedYes),
				stopped(metav1.ConditionUnknown, "The cluster stopped status could not be determined. This might be due to the cluster reconciliation being paused.")}},
		{"no role: no Available", nil, ClusterOperation{},
			[]Condition{paused(metav1.ConditionFalse, pausedNot), stopped(metav1.ConditionFalse, runningMsg)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ClusterState{Cluster: Cluster{Command: CommandPaused, Spec: Spec{ClusterOperation: tc.op}}, Workloads: tc.ws, Profile: ProfileOperatorRS}
			if got := Table(s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
	// operator-rs's ClusterCondition has no lastProbeTime.
	conds, _ := Status(ClusterState{Workloads: healthy, Profile: ProfileOperatorRS}, nil, at0)
	for _, c := range conds {
		if !c.LastProbeTime.IsZero() || c.LastTransitionTime.IsZero() {
			t.Errorf("%s: probe %v, transition %v: want no probe time, a transition time", c.Type, c.LastProbeTime, c.LastTransitionTime)
		}
	}
}
