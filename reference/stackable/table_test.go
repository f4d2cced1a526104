package stackable

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// row is what a test expects of a Verdict: status, reason, message.
type want struct {
	status  metav1.ConditionStatus
	reason  string
	message string
}

func got(v Verdict) want { return want{v.Status, v.Reason, v.Message()} }

func pods(namePhase ...string) []Pod {
	var out []Pod
	for i := 0; i < len(namePhase); i += 2 {
		out = append(out, Pod{Name: namePhase[i], Phase: corev1.PodPhase(namePhase[i+1])})
	}
	return out
}

var (
	availableTrue   = want{metav1.ConditionTrue, ReasonAvailable, "The cluster has the desired amount of replicas."}
	availableFalse  = want{metav1.ConditionFalse, ReasonReplicasUnavailable, "The cluster does not have the desired amount of replicas."}
	progressingTrue = want{metav1.ConditionTrue, ReasonReplicasStarting, "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."}
	progressingDone = want{metav1.ConditionFalse, ReasonReplicasAvailable, "The cluster has the desired amount of replicas."}
	notDegraded     = want{metav1.ConditionFalse, ReasonNotDegraded, "The cluster has the desired amount of replicas."}
)

// One case per row of 004 §Implementation details, and one per case where rows
// overlap or leave the state open (decision 004,
// conformance/stackable/README.md).
func TestEvaluate(t *testing.T) {
	for _, tc := range []struct {
		name                             string
		w                                WorkloadState
		available, progressing, degraded want
	}{
		{"004 §Implementation details, Available True, Progressing False, Degraded False: availableReplicas == replicas",
			WorkloadState{Replicas: 3, AvailableReplicas: 3, Pods: pods("s-0", "Running", "s-1", "Running", "s-2", "Running")},
			availableTrue, progressingDone, notDegraded},
		{"004 §Implementation details, Available False and Progressing True: replicas missing, no pod Unknown or Failed",
			WorkloadState{Replicas: 3, AvailableReplicas: 1, Pods: pods("s-0", "Running", "s-1", "Pending")},
			availableFalse, progressingTrue, notDegraded},
		{"004 §Implementation details, Available Unknown and Degraded True: a pod has phase Unknown",
			WorkloadState{Replicas: 3, AvailableReplicas: 2, Pods: pods("s-0", "Running", "s-2", "Running", "s-1", "Unknown")},
			want{metav1.ConditionUnknown, ReasonPodPhaseUnknown, "The cluster has not the desired amount of replicas. At least one Pod [s-1] has phase Unknown."},
			progressingTrue,
			want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [s-1] has Phase [Unknown]."}},
		{"004 §Implementation details, Progressing False (a pod Failed) and Degraded True",
			WorkloadState{Replicas: 3, AvailableReplicas: 1, Pods: pods("s-2", "Failed", "s-0", "Running", "s-1", "Failed")},
			availableFalse,
			want{metav1.ConditionFalse, ReasonPodFailed, "The cluster does not have the desired amount of replicas. At least one Pod [s-1,s-2] has Phase Failed."},
			want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [s-1,s-2] has Phase [Failed]."}},
		{"decision 004: Progressing's rows overlap on a pod Failed and one running: the Failed row wins; Unknown and Failed both named by Degraded",
			WorkloadState{Replicas: 3, AvailableReplicas: 1, Pods: pods("s-0", "Running", "s-1", "Failed", "s-2", "Unknown")},
			want{metav1.ConditionUnknown, ReasonPodPhaseUnknown, "The cluster has not the desired amount of replicas. At least one Pod [s-2] has phase Unknown."},
			want{metav1.ConditionFalse, ReasonPodFailed, "The cluster does not have the desired amount of replicas. At least one Pod [s-1] has Phase Failed."},
			want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [s-1,s-2] has Phase [Unknown,Failed]."}},
		{"decision 004: no pod at all yet is progress",
			WorkloadState{Replicas: 3},
			availableFalse, progressingTrue, notDegraded},
		{"decision 004: availableReplicas > replicas (a scale-down in flight) is not degraded, even with a pod Failed",
			WorkloadState{Replicas: 2, AvailableReplicas: 3, Pods: pods("s-0", "Running", "s-1", "Running", "s-2", "Running", "s-3", "Failed")},
			availableFalse,
			want{metav1.ConditionFalse, ReasonPodFailed, "The cluster does not have the desired amount of replicas. At least one Pod [s-3] has Phase Failed."},
			notDegraded},
		{"decision 004: availableReplicas > replicas without a failed pod is progress",
			WorkloadState{Replicas: 2, AvailableReplicas: 3, Pods: pods("s-0", "Running", "s-1", "Running", "s-2", "Running")},
			availableFalse, progressingTrue, notDegraded},
		{"decision 004: all replicas available beside a Failed pod (a replaced one): the equal rows win",
			WorkloadState{Replicas: 2, AvailableReplicas: 2, Pods: pods("s-0", "Running", "s-1", "Running", "old", "Failed")},
			availableTrue, progressingDone, notDegraded},
		{"decision 004: a DaemonSet counts desiredNumberScheduled and numberAvailable",
			WorkloadState{Kind: DaemonSet, Replicas: 2, AvailableReplicas: 2, NumberReady: 2, Pods: pods("a-x", "Running", "a-y", "Running")},
			availableTrue, progressingDone, notDegraded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Evaluate(tc.w)
			if got(c.Available) != tc.available {
				t.Errorf("Available %+v, want %+v", got(c.Available), tc.available)
			}
			if got(c.Progressing) != tc.progressing {
				t.Errorf("Progressing %+v, want %+v", got(c.Progressing), tc.progressing)
			}
			if got(c.Degraded) != tc.degraded {
				t.Errorf("Degraded %+v, want %+v", got(c.Degraded), tc.degraded)
			}
		})
	}
}

// decision 004, conformance/stackable/README.md: the rows over a cluster's
// workloads, "any_pod" over all of their pods.
func TestOver(t *testing.T) {
	ok := WorkloadState{Replicas: 2, AvailableReplicas: 2}
	starting := WorkloadState{Replicas: 2, AvailableReplicas: 1, Pods: pods("web-b", "Pending")}
	lost := WorkloadState{Replicas: 3, AvailableReplicas: 2, Pods: pods("server-1", "Unknown")}
	failed := WorkloadState{Replicas: 2, AvailableReplicas: 1, Pods: pods("web-abc-0", "Failed")}
	failedToo := WorkloadState{Replicas: 1, AvailableReplicas: 0, Pods: pods("agent-a", "Failed")}
	surplus := WorkloadState{Replicas: 1, AvailableReplicas: 2}
	unhealthy := want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [server-1] has Phase [Unknown]."}
	availableUnknown := want{metav1.ConditionUnknown, ReasonPodPhaseUnknown, "The cluster has not the desired amount of replicas. At least one Pod [server-1] has phase Unknown."}
	for _, tc := range []struct {
		name                             string
		ws                               []WorkloadState
		available, progressing, degraded want
	}{
		{"all available", []WorkloadState{ok, ok}, availableTrue, progressingDone, notDegraded},
		{"a pod Unknown anywhere makes Available Unknown", []WorkloadState{lost, starting, ok}, availableUnknown, progressingTrue, unhealthy},
		{"Unknown in one workload, Failed in another: Unknown, and the Failed row", []WorkloadState{ok, lost, failed},
			availableUnknown,
			want{metav1.ConditionFalse, ReasonPodFailed, "The cluster does not have the desired amount of replicas. At least one Pod [web-abc-0] has Phase Failed."},
			want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [server-1,web-abc-0] has Phase [Unknown,Failed]."}},
		{"Progressing False names the failed pods of every workload", []WorkloadState{ok, failedToo, failed},
			availableFalse,
			want{metav1.ConditionFalse, ReasonPodFailed, "The cluster does not have the desired amount of replicas. At least one Pod [agent-a,web-abc-0] has Phase Failed."},
			want{metav1.ConditionTrue, ReasonPodsUnhealthy, "The cluster has less than the desired amount of replicas. At least one Pod [agent-a,web-abc-0] has Phase [Failed]."}},
		{"a surplus is not the desired amount", []WorkloadState{ok, surplus}, availableFalse, progressingTrue, notDegraded},
		{"no workload: nothing is missing", nil, availableTrue, progressingDone, notDegraded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Over(tc.ws)
			if got(m.Available) != tc.available || got(m.Progressing) != tc.progressing || got(m.Degraded) != tc.degraded {
				t.Errorf("over the cluster\n%+v\n%+v\n%+v\nwant\n%+v\n%+v\n%+v", got(m.Available), got(m.Progressing), got(m.Degraded),
					tc.available, tc.progressing, tc.degraded)
			}
		})
	}
	if m := Over([]WorkloadState{ok}); !reflect.DeepEqual(m, Evaluate(ok)) {
		t.Errorf("one workload %+v, want Evaluate's %+v", m, Evaluate(ok))
	}
}
