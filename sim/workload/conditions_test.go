package workload

import (
	"math"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDeploymentConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	ten := int32(600)
	none := int32(math.MaxInt32)
	counts := func(replicas, updated, ready int32, conds ...appsv1.DeploymentCondition) appsv1.DeploymentStatus {
		return appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: replicas, UpdatedReplicas: updated,
			ReadyReplicas: ready, AvailableReplicas: ready, Conditions: conds}
	}
	cond := func(ty appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason string, updated, transition time.Time) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: ty, Status: s, Reason: reason,
			LastUpdateTime: metav1.NewTime(updated), LastTransitionTime: metav1.NewTime(transition)}
	}
	avail := cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, ReasonMinimumReplicasAvailable, t0, t0)
	done := cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSetAvailable, t0, t0)
	rolling := cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, t0, t0)
	tests := []struct {
		name     string
		r        Rollout
		old, st  appsv1.DeploymentStatus
		progress *appsv1.DeploymentCondition // want; nil: none
		avail    corev1.ConditionStatus
		next     time.Time
	}{
		{"a new replica set, nothing moved yet: created",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b", Created: true},
			counts(3, 3, 3, avail, done), counts(4, 1, 3),
			&appsv1.DeploymentCondition{Reason: ReasonNewReplicaSetCreated, Status: corev1.ConditionTrue,
				LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(t0)},
			corev1.ConditionTrue, now.Add(601 * time.Second)},
		{"counts moved: updated now, transition kept",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b"},
			counts(4, 1, 3, avail, rolling), counts(4, 2, 3),
			&appsv1.DeploymentCondition{Reason: ReasonReplicaSetUpdated, Status: corev1.ConditionTrue,
				LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(t0)},
			corev1.ConditionTrue, now.Add(601 * time.Second)},
		{"nothing moved within the deadline: left as it is",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b"},
			counts(4, 1, 3, avail, cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, now.Add(-600*time.Second), t0)),
			counts(4, 1, 3),
			&appsv1.DeploymentCondition{Reason: ReasonReplicaSetUpdated, Status: corev1.ConditionTrue,
				LastUpdateTime: metav1.NewTime(now.Add(-600 * time.Second)), LastTransitionTime: metav1.NewTime(t0)},
			corev1.ConditionTrue, now.Add(time.Second)},
		{"nothing moved past the deadline: timed out",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b"},
			counts(4, 1, 3, avail, rolling), counts(4, 1, 3),
			&appsv1.DeploymentCondition{Reason: ReasonProgressDeadlineExceeded, Status: corev1.ConditionFalse,
				LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)},
			corev1.ConditionTrue, time.Time{}},
		{"complete: available",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b"},
			counts(4, 3, 3, avail, rolling), counts(3, 3, 3),
			&appsv1.DeploymentCondition{Reason: ReasonNewReplicaSetAvailable, Status: corev1.ConditionTrue,
				LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(t0)},
			corev1.ConditionTrue, time.Time{}},
		{"complete, then a pod unready: Progressing stands, Available goes",
			Rollout{Replicas: 3, Generation: 2, Deadline: &ten, ReplicaSet: "web-b"},
			counts(3, 3, 3, avail, done), counts(3, 3, 2),
			&done, corev1.ConditionFalse, time.Time{}},
		{"no deadline: no Progressing",
			Rollout{Replicas: 3, Generation: 2, Deadline: &none, ReplicaSet: "web-b", Created: true},
			counts(3, 3, 3, avail, done), counts(4, 1, 3),
			nil, corev1.ConditionTrue, time.Time{}},
	}
	for _, tt := range tests {
		st, next := DeploymentConditions(tt.r, tt.old, tt.st, now)
		p := getCondition(st, appsv1.DeploymentProgressing)
		switch {
		case (p == nil) != (tt.progress == nil):
			t.Errorf("%s: Progressing %+v, want %+v", tt.name, p, tt.progress)
		case p != nil && (p.Status != tt.progress.Status || p.Reason != tt.progress.Reason ||
			!p.LastUpdateTime.Equal(&tt.progress.LastUpdateTime) || !p.LastTransitionTime.Equal(&tt.progress.LastTransitionTime)):
			t.Errorf("%s: Progressing %s %s updated %s transition %s, want %s %s updated %s transition %s", tt.name,
				p.Status, p.Reason, p.LastUpdateTime, p.LastTransitionTime,
				tt.progress.Status, tt.progress.Reason, tt.progress.LastUpdateTime, tt.progress.LastTransitionTime)
		}
		if a := getCondition(st, appsv1.DeploymentAvailable); a == nil || a.Status != tt.avail {
			t.Errorf("%s: Available %+v, want %s", tt.name, a, tt.avail)
		}
		if !next.Equal(tt.next) {
			t.Errorf("%s: next look %s, want %s", tt.name, next, tt.next)
		}
	}
}
