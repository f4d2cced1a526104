package workload

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func pod(name, node, hash string, phase corev1.PodPhase, ready bool) Pod {
	return Pod{Name: name, Node: node, Hash: hash, Phase: phase, Ready: ready}
}

func TestDeploymentStatus(t *testing.T) {
	run, pend, fail, unk := corev1.PodRunning, corev1.PodPending, corev1.PodFailed, corev1.PodUnknown
	tests := []struct {
		name string
		pods []Pod
		want appsv1.DeploymentStatus
	}{
		{"coming up", []Pod{pod("a", "m0", "b", pend, false), pod("b", "m1", "b", pend, false)},
			appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2}},
		{"surged", []Pod{pod("a", "m0", "a", run, true), pod("b", "m1", "a", run, true), pod("c", "m0", "b", pend, false)},
			appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1}},
		{"a failed pod is not a replica, still unavailable", []Pod{pod("a", "m0", "b", run, true), pod("b", "m1", "b", fail, false)},
			appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1}},
		{"a lost pod is a replica, not ready", []Pod{pod("a", "m0", "b", run, true), pod("b", "m1", "b", unk, false)},
			appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1}},
	}
	for _, tt := range tests {
		if got := DeploymentStatus(2, "b", tt.pods); !equality.Semantic.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestDaemonSetStatus(t *testing.T) {
	run, pend := corev1.PodRunning, corev1.PodPending
	got := DaemonSetStatus(3, "b", []string{"m0", "m1", "m2"},
		[]Pod{pod("x-m0", "m0", "b", pend, false), pod("x-m2", "m2", "a", run, true)})
	want := appsv1.DaemonSetStatus{ObservedGeneration: 3, DesiredNumberScheduled: 3, CurrentNumberScheduled: 2,
		UpdatedNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1, NumberUnavailable: 2}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
}

func TestStatefulSetStatus(t *testing.T) {
	run, pend := corev1.PodRunning, corev1.PodPending
	tests := []struct {
		name     string
		replicas int
		hash     string
		current  string
		pods     []Pod
		want     appsv1.StatefulSetStatus
	}{
		{"first status: the update revision is current", 2, "a", "", []Pod{pod("db-0", "m0", "a", pend, false)},
			appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
				CurrentRevision: "db-a", UpdateRevision: "db-a"}},
		{"mid-update: both revisions counted", 2, "b", "db-a", []Pod{pod("db-0", "m0", "a", run, true), pod("db-1", "m1", "b", run, true)},
			appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
				CurrentReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "db-a", UpdateRevision: "db-b"}},
		{"all updated and ready: the current revision moves", 2, "b", "db-a", []Pod{pod("db-0", "m0", "b", run, true), pod("db-1", "m1", "b", run, true)},
			appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
				CurrentReplicas: 2, UpdatedReplicas: 2, CurrentRevision: "db-b", UpdateRevision: "db-b"}},
		{"all updated, one not ready: it does not", 2, "b", "db-a", []Pod{pod("db-0", "m0", "b", pend, false), pod("db-1", "m1", "b", run, true)},
			appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1,
				UpdatedReplicas: 2, CurrentRevision: "db-a", UpdateRevision: "db-b"}},
	}
	for _, tt := range tests {
		if got := StatefulSetStatus(1, "db", tt.replicas, tt.hash, tt.current, tt.pods); !equality.Semantic.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
