package workload

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// fault is what a scenario did to a pod.
type fault int

const (
	healthy fault = iota
	// failed: its containers terminated in failure (FailPod).
	failed
	// lost: its node stopped reporting it (LosePod).
	lost
)

// life is what the simulated kubelet knows of one pod.
type life struct {
	// readyAt is when its containers pass their readiness check.
	readyAt time.Time
	// restarted: it ran before (RecoverPod), so it is Running, not
	// Pending, while it gets ready again.
	restarted bool
	// readied: it has been Ready since it (re)started, so a Stick of its
	// version afterwards does not make it unready.
	readied bool
	fault   fault
}

// podState is a pod's phase and Ready condition as the kubelet (or, for
// a lost pod, the node lifecycle controller) reports them.
type podState struct {
	Phase   corev1.PodPhase
	Ready   corev1.ConditionStatus
	Reason  string
	Message string
}

// at is the pod's state at now, its life afterwards (readied once Ready)
// and the next instant its state changes by itself (zero if never). A
// stuck pod (its version stuck by Stick) that has not been Ready yet
// starts running but never gets ready.
func (l life) at(now time.Time, stuck bool, container string) (life, podState, time.Time) {
	unready := podState{Phase: corev1.PodRunning, Ready: corev1.ConditionFalse,
		Reason: "ContainersNotReady", Message: "containers with unready status: [" + container + "]"}
	switch {
	case l.fault == failed:
		return l, podState{Phase: corev1.PodFailed, Ready: corev1.ConditionFalse,
			Reason: "PodFailed", Message: "The pod's containers terminated in failure"}, time.Time{}
	case l.fault == lost:
		return l, podState{Phase: corev1.PodUnknown, Ready: corev1.ConditionUnknown,
			Reason: "NodeLost", Message: "The pod's node stopped reporting its status"}, time.Time{}
	case now.Before(l.readyAt):
		if !l.restarted {
			unready.Phase = corev1.PodPending
		}
		return l, unready, l.readyAt
	case stuck && !l.readied:
		return l, unready, time.Time{}
	}
	l.readied = true
	return l, podState{Phase: corev1.PodRunning, Ready: corev1.ConditionTrue}, time.Time{}
}
