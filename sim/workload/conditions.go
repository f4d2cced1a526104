package workload

import (
	"fmt"
	"math"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reasons the deployment controller gives its conditions
// (pkg/controller/deployment/util).
const (
	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonNewReplicaSetCreated       = "NewReplicaSetCreated"
	ReasonReplicaSetUpdated          = "ReplicaSetUpdated"
	ReasonNewReplicaSetAvailable     = "NewReplicaSetAvailable"
	ReasonProgressDeadlineExceeded   = "ProgressDeadlineExceeded"
)

// Rollout is what DeploymentConditions needs of a Deployment besides its
// counts.
type Rollout struct {
	// Replicas is the Deployment's spec.replicas.
	Replicas int32
	// Generation is the Deployment's metadata.generation.
	Generation int64
	// Deadline is spec.progressDeadlineSeconds (the API server defaults
	// it to 600); nil or math.MaxInt32 means none, and no Progressing.
	Deadline *int32
	// ReplicaSet names the pods' current template's replica set,
	// <deployment>-<hash>.
	ReplicaSet string
	// Created is true when the sync made the replica set's first pod.
	Created bool
}

// DeploymentConditions gives st (the new counts) the Available and
// Progressing conditions the deployment controller leaves at the end of
// a sync (calculateStatus, getNewReplicaSet, syncRolloutStatus), from the
// status before (old) at now, and returns when to look again for the
// progress deadline (zero if there is none to watch). Available: the
// available pods reach the replicas (maxUnavailable 0). Progressing: True
// NewReplicaSetCreated when the replica set is created, ReplicaSetUpdated
// whenever the counts move forward (lastUpdateTime now, lastTransitionTime
// kept), NewReplicaSetAvailable once complete, False
// ProgressDeadlineExceeded when nothing moved for the deadline. As the
// controller does, a condition whose status and reason stand is left
// as it is, times included.
func DeploymentConditions(r Rollout, old, st appsv1.DeploymentStatus, now time.Time) (appsv1.DeploymentStatus, time.Time) {
	deadline := r.Deadline != nil && *r.Deadline != math.MaxInt32
	st.Conditions = slices.Clone(old.Conditions)
	if r.Created && deadline {
		setCondition(&st, condition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSetCreated,
			fmt.Sprintf("Created new replica set %q", r.ReplicaSet), now))
	}
	current := getCondition(st, appsv1.DeploymentProgressing)
	if st.AvailableReplicas >= r.Replicas {
		setCondition(&st, condition(appsv1.DeploymentAvailable, corev1.ConditionTrue, ReasonMinimumReplicasAvailable,
			"Deployment has minimum availability.", now))
	} else {
		setCondition(&st, condition(appsv1.DeploymentAvailable, corev1.ConditionFalse, ReasonMinimumReplicasUnavailable,
			"Deployment does not have minimum availability.", now))
	}
	if !deadline {
		removeCondition(&st, appsv1.DeploymentProgressing)
		return st, time.Time{}
	}
	complete := st.UpdatedReplicas == r.Replicas && st.Replicas == r.Replicas && st.AvailableReplicas == r.Replicas &&
		st.ObservedGeneration >= r.Generation
	stays := st.Replicas == st.UpdatedReplicas && current != nil && current.Reason == ReasonNewReplicaSetAvailable
	switch {
	case stays:
	case complete:
		setCondition(&st, condition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSetAvailable,
			fmt.Sprintf("ReplicaSet %q has successfully progressed.", r.ReplicaSet), now))
	case progressed(old, st):
		c := condition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated,
			fmt.Sprintf("ReplicaSet %q is progressing.", r.ReplicaSet), now)
		if current != nil && current.Status == corev1.ConditionTrue {
			c.LastTransitionTime = current.LastTransitionTime
		}
		removeCondition(&st, appsv1.DeploymentProgressing)
		setCondition(&st, c)
	case timedOut(current, *r.Deadline, now):
		setCondition(&st, condition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonProgressDeadlineExceeded,
			fmt.Sprintf("ReplicaSet %q has timed out progressing.", r.ReplicaSet), now))
	}
	// requeueStuckDeployment: look again a second after the deadline.
	c := getCondition(st, appsv1.DeploymentProgressing)
	if complete || c == nil || c.Reason == ReasonProgressDeadlineExceeded || c.Reason == ReasonNewReplicaSetAvailable {
		return st, time.Time{}
	}
	return st, c.LastUpdateTime.Add(time.Duration(*r.Deadline)*time.Second + time.Second)
}

// progressed is DeploymentProgressing: a count moved forward.
func progressed(old, st appsv1.DeploymentStatus) bool {
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// timedOut is DeploymentTimedOut: no progress since the deadline.
func timedOut(c *appsv1.DeploymentCondition, deadline int32, now time.Time) bool {
	switch {
	case c == nil || c.Reason == ReasonNewReplicaSetAvailable:
		return false
	case c.Reason == ReasonProgressDeadlineExceeded:
		return true
	}
	return c.LastUpdateTime.Add(time.Duration(deadline) * time.Second).Before(now)
}

func condition(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg,
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
}

func getCondition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			c := st.Conditions[i]
			return &c
		}
	}
	return nil
}

// setCondition is SetDeploymentCondition: nothing changes when status and
// reason stand; the transition time stays when the status does.
func setCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := getCondition(*st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

func removeCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c appsv1.DeploymentCondition) bool { return c.Type == t })
}
