package stackable

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cond is a condition without times.
func cond(typ string, status metav1.ConditionStatus, reason, message string) Condition {
	return Condition{Type: typ, Status: status, Reason: reason, Message: message}
}

var (
	at0      = timeline.Epoch
	healthy  = []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 3}}
	running  = cond(TypeStopped, metav1.ConditionFalse, ReasonRunning, "The cluster is currently not stopped.")
	reconcil = cond(TypePaused, metav1.ConditionFalse, ReasonReconciling, "The cluster is currently reconciled by the operator.")
)

// 004 §Implementation details, Paused and Stopped rows, and the Stopped
// override of decision 004 (conformance/stackable/README.md).
func TestTable(t *testing.T) {
	stopping := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 0, AvailableReplicas: 2, Pods: pods("c-server-0", "Running", "c-server-1", "Failed")}}
	stoppedRow := cond(TypeStopped, metav1.ConditionTrue, ReasonStopped, "The cluster is currently stopped. All replicas are set to 0.")
	for _, tc := range []struct {
		name string
		s    ClusterState
		want []Condition
	}{
		{"a healthy cluster, in the ADR's order", ClusterState{Workloads: healthy}, []Condition{
			cond(TypeAvailable, metav1.ConditionTrue, ReasonAvailable, MessageDesired),
			cond(TypeProgressing, metav1.ConditionFalse, ReasonReplicasAvailable, MessageDesired),
			cond(TypeDegraded, metav1.ConditionFalse, ReasonNotDegraded, MessageDesired), reconcil, running}},
		{"004 §Implementation details, Paused True: the annotation is Paused; the other rows still follow the workloads",
			ClusterState{Cluster: Cluster{Command: CommandPaused}, Workloads: healthy}, []Condition{
				cond(TypeAvailable, metav1.ConditionTrue, ReasonAvailable, MessageDesired),
				cond(TypeProgressing, metav1.ConditionFalse, ReasonReplicasAvailable, MessageDesired),
				cond(TypeDegraded, metav1.ConditionFalse, ReasonNotDegraded, MessageDesired),
				cond(TypePaused, metav1.ConditionTrue, ReasonPaused, "The cluster is currently not reconciled by the operator."), running}},
		{"004 §Implementation details, Stopped True, decision 004: Available False with 'No Pods running.' while pods still run or fail",
			ClusterState{Cluster: Cluster{Command: CommandStopped}, Workloads: stopping}, []Condition{
				cond(TypeAvailable, metav1.ConditionFalse, ReasonStopped, "No Pods running."),
				cond(TypeProgressing, metav1.ConditionFalse, ReasonStopped, MessageStopped),
				cond(TypeDegraded, metav1.ConditionFalse, ReasonStopped, MessageStopped), reconcil, stoppedRow}},
		{"004 §Implementation details, Paused and Stopped False: another annotation value",
			ClusterState{Cluster: Cluster{Command: "Restart"}, Workloads: healthy}, []Condition{
				cond(TypeAvailable, metav1.ConditionTrue, ReasonAvailable, MessageDesired),
				cond(TypeProgressing, metav1.ConditionFalse, ReasonReplicasAvailable, MessageDesired),
				cond(TypeDegraded, metav1.ConditionFalse, ReasonNotDegraded, MessageDesired), reconcil, running}},
		{"decision 004: the seed profile ignores spec.clusterOperation",
			ClusterState{Cluster: Cluster{Spec: Spec{ClusterOperation: ClusterOperation{ReconciliationPaused: true, Stopped: true}}}, Workloads: healthy}, []Condition{
				cond(TypeAvailable, metav1.ConditionTrue, ReasonAvailable, MessageDesired),
				cond(TypeProgressing, metav1.ConditionFalse, ReasonReplicasAvailable, MessageDesired),
				cond(TypeDegraded, metav1.ConditionFalse, ReasonNotDegraded, MessageDesired), reconcil, running}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Table(tc.s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// The times of decision 004 (conformance/stackable/README.md): a write only on
// a change of status, reason or message; lastProbeTime the write's;
// lastTransitionTime moved only by a change of status.
func TestStatus(t *testing.T) {
	t0 := metav1.NewTime(timeline.Epoch)
	t1 := timeline.Epoch.Add(time.Minute)
	first, write := Status(ClusterState{Workloads: healthy}, nil, timeline.Epoch)
	if !write || len(first) != 5 {
		t.Fatalf("first status %+v (write %v), want five conditions written", first, write)
	}
	for _, c := range first {
		if !c.LastProbeTime.Equal(&t0) || !c.LastTransitionTime.Equal(&t0) {
			t.Errorf("%s: probe %v, transition %v, want both at the write's time", c.Type, c.LastProbeTime, c.LastTransitionTime)
		}
	}
	if again, write := Status(ClusterState{Workloads: healthy}, first, t1); write || !reflect.DeepEqual(again, first) {
		t.Errorf("nothing changed: wrote %v, %+v", write, again)
	}

	foreign := append(append([]Condition(nil), first...), Condition{Type: "Upgradable", Status: metav1.ConditionUnknown})
	lost := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 2, Pods: pods("c-server-1", "Unknown")}}
	next, write := Status(ClusterState{Workloads: lost}, foreign, t1)
	if !write {
		t.Fatal("a pod lost: no write")
	}
	at := metav1.NewTime(t1)
	for _, tc := range []struct {
		typ        string
		status     metav1.ConditionStatus
		transition metav1.Time
	}{
		{TypeAvailable, metav1.ConditionUnknown, at},
		{TypeProgressing, metav1.ConditionTrue, at},
		{TypeDegraded, metav1.ConditionTrue, at},
		{TypePaused, metav1.ConditionFalse, t0},
		{TypeStopped, metav1.ConditionFalse, t0},
	} {
		c := find(next, tc.typ)
		if c == nil || c.Status != tc.status || !c.LastTransitionTime.Equal(&tc.transition) || !c.LastProbeTime.Equal(&at) {
			t.Errorf("%s: %+v, want %s since %v, probed at %v", tc.typ, c, tc.status, tc.transition, at)
		}
	}
	if c := next[len(next)-1]; c.Type != "Upgradable" || !c.LastProbeTime.IsZero() {
		t.Errorf("another writer's condition not kept as it was, last: %+v", c)
	}

	// A message change alone is a write, and keeps the transition time.
	lostMore := []WorkloadState{{Kind: StatefulSet, Name: "c-server", Replicas: 3, AvailableReplicas: 1, Pods: pods("c-server-1", "Unknown", "c-server-2", "Unknown")}}
	t2 := t1.Add(time.Minute)
	last, write := Status(ClusterState{Workloads: lostMore}, next, t2)
	if c := find(last, TypeAvailable); !write || !c.LastTransitionTime.Equal(&at) || !c.LastProbeTime.Equal(&metav1.Time{Time: t2}) ||
		c.Message != "The cluster has not the desired amount of replicas. At least one Pod [c-server-1,c-server-2] has phase Unknown." {
		t.Errorf("message change: write %v, Available %+v", write, c)
	}
}

func find(cs []Condition, typ string) *Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

func TestDesired(t *testing.T) {
	c := Cluster{Namespace: "ns", Name: "c", UID: "uid-1", Spec: Spec{Roles: []Role{
		{Name: "server", Kind: StatefulSet, Replicas: 3}, {Name: "web", Kind: Deployment, Replicas: 2}, {Name: "agent", Kind: DaemonSet}}}}
	three, two, zero := int32(3), int32(2), int32(0)
	yes := true
	ref := metav1.OwnerReference{APIVersion: "samples.opcert.io/v1alpha1", Kind: "SampleCluster", Name: "c", UID: "uid-1", Controller: &yes, BlockOwnerDeletion: &yes}
	labels := func(role string) map[string]string {
		return map[string]string{LabelInstance: "c", LabelComponent: role}
	}
	stopped := c
	stopped.Command = CommandStopped
	rsStopped := c
	rsStopped.Spec.ClusterOperation.Stopped = true
	rsBoth := rsStopped
	rsBoth.Spec.ClusterOperation.ReconciliationPaused = true
	running := []Workload{
		{Kind: StatefulSet, Name: "c-server", Role: "server", Labels: labels("server"), Owner: ref, Replicas: &three},
		{Kind: Deployment, Name: "c-web", Role: "web", Labels: labels("web"), Owner: ref, Replicas: &two},
		{Kind: DaemonSet, Name: "c-agent", Role: "agent", Labels: labels("agent"), Owner: ref}}
	scaledDown := []Workload{
		{Kind: StatefulSet, Name: "c-server", Role: "server", Labels: labels("server"), Owner: ref, Replicas: &zero},
		{Kind: Deployment, Name: "c-web", Role: "web", Labels: labels("web"), Owner: ref, Replicas: &zero}}
	for _, tc := range []struct {
		name    string
		c       Cluster
		profile Profile
		want    []Workload
	}{
		{"one workload per role, owned, labelled, with the role's replicas", c, ProfileSeed, running},
		{"004 §Implementation details, Stopped True: all replicas set to 0, no DaemonSet", stopped, ProfileSeed, scaledDown},
		{"the seed profile ignores clusterOperation.stopped", rsStopped, ProfileSeed, running},
		{"operator-rs: clusterOperation.stopped scales to 0", rsStopped, ProfileOperatorRS, scaledDown},
		{"operator-rs: pausing takes precedence over stopping (cluster_operation.rs)", rsBoth, ProfileOperatorRS, running},
		{"operator-rs ignores the annotation", stopped, ProfileOperatorRS, running},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Desired(tc.c, tc.profile)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

// 004 §Implementation details' precondition: what the operator cannot
// render fails its reconcile.
func TestDesiredErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  Spec
		error string
	}{
		{"spec.broken", Spec{Broken: "no such product version", Roles: []Role{{Name: "a", Kind: Deployment}}},
			"cannot render the cluster ns/c: no such product version"},
		{"a role without a name", Spec{Roles: []Role{{Kind: Deployment}}}, "cannot render the cluster ns/c: a role without a name"},
		{"a role twice", Spec{Roles: []Role{{Name: "a", Kind: Deployment}, {Name: "a", Kind: StatefulSet}}},
			`cannot render the cluster ns/c: role "a" given twice`},
		{"another kind", Spec{Roles: []Role{{Name: "a", Kind: "Job"}}},
			`cannot render the cluster ns/c: role "a" has kind "Job", not StatefulSet, Deployment or DaemonSet`},
		{"negative replicas", Spec{Roles: []Role{{Name: "a", Kind: StatefulSet, Replicas: -1}}},
			`cannot render the cluster ns/c: role "a" has -1 replicas`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Desired(Cluster{Namespace: "ns", Name: "c", Spec: tc.spec}, ProfileSeed)
			if !errors.Is(err, ErrBroken) || err.Error() != tc.error {
				t.Errorf("error %v, want %q wrapping ErrBroken", err, tc.error)
			}
		})
	}
}
