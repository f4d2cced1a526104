package stackable

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kind is a kind of workload the operator owns.
type Kind string

// The workload kinds of 004 §Implementation details, Degraded False.
const (
	StatefulSet Kind = "StatefulSet"
	Deployment  Kind = "Deployment"
	DaemonSet   Kind = "DaemonSet"
)

// Pod is what the table reads of a pod: its name and status.phase.
type Pod struct {
	// Name is the pod's name.
	Name string
	// Phase is the pod's status.phase.
	Phase corev1.PodPhase
}

// WorkloadState is what the table reads of one owned workload.
type WorkloadState struct {
	// Kind is the workload's kind.
	Kind Kind
	// Name is the workload's name, <cluster>-<role>.
	Name string
	// Replicas is spec.replicas (StatefulSet, Deployment) or
	// status.desiredNumberScheduled (DaemonSet); AvailableReplicas is
	// status.availableReplicas or status.numberAvailable (decision 004,
	// conformance/stackable/README.md).
	Replicas, AvailableReplicas int32
	// NumberReady is a DaemonSet's status.numberReady, which the
	// operator-rs profile reads instead (daemonset.rs).
	NumberReady int32
	// Pods are the workload's pods (by its selector) not being deleted.
	Pods []Pod
}

// Conditions are the table's three workload-derived rows.
type Conditions struct {
	// Available, Progressing and Degraded are the rows of their condition types.
	Available, Progressing, Degraded Verdict
}

// Evaluate is 004 §Implementation details for a cluster of one workload
// (Over of it alone).
func Evaluate(w WorkloadState) Conditions { return Over([]WorkloadState{w}) }

// Over is 004 §Implementation details over a cluster, row by row (decision
// 004, conformance/stackable/README.md): availableReplicas == replicas when
// every workload has as many available as its role asks, < when one has fewer,
// and "any_pod" over the pods of all of them:
//   - Available True iff availableReplicas == replicas; else Unknown if
//     a pod has phase Unknown; else False.
//   - Progressing False iff availableReplicas == replicas; else False if
//     a pod has phase Failed (the third row wins where it overlaps the
//     first: a failed pod stops progress); else True, also when no pod
//     exists yet.
//   - Degraded True iff availableReplicas < replicas and a pod has phase
//     Unknown or Failed. Where the table leaves Degraded open (fewer
//     available with no pod Unknown or Failed: progress; more available
//     than asked: a scale-down in flight), False.
//
// No workload at all reads as all replicas there.
func Over(ws []WorkloadState) Conditions {
	equal, fewer := true, false
	var unknown, failed, unhealthy []string
	for _, w := range ws {
		equal = equal && w.AvailableReplicas == w.Replicas
		fewer = fewer || w.AvailableReplicas < w.Replicas
		for _, p := range w.Pods {
			switch p.Phase {
			case corev1.PodUnknown:
				unknown = append(unknown, p.Name)
				unhealthy = append(unhealthy, p.Name)
			case corev1.PodFailed:
				failed = append(failed, p.Name)
				unhealthy = append(unhealthy, p.Name)
			}
		}
	}
	var phases []corev1.PodPhase
	if len(unknown) > 0 {
		phases = append(phases, corev1.PodUnknown)
	}
	if len(failed) > 0 {
		phases = append(phases, corev1.PodFailed)
	}
	var c Conditions
	switch {
	case equal:
		c.Available = row(metav1.ConditionTrue, ReasonAvailable, MessageDesired, nil, nil)
	case len(unknown) > 0:
		c.Available = row(metav1.ConditionUnknown, ReasonPodPhaseUnknown, MessageUnknown, unknown, []corev1.PodPhase{corev1.PodUnknown})
	default:
		c.Available = row(metav1.ConditionFalse, ReasonReplicasUnavailable, MessageNotDesired, nil, nil)
	}
	switch {
	case equal:
		c.Progressing = row(metav1.ConditionFalse, ReasonReplicasAvailable, MessageDesired, nil, nil)
	case len(failed) > 0:
		c.Progressing = row(metav1.ConditionFalse, ReasonPodFailed, MessageFailed, failed, []corev1.PodPhase{corev1.PodFailed})
	default:
		c.Progressing = row(metav1.ConditionTrue, ReasonReplicasStarting, MessageStarting, nil, nil)
	}
	if fewer && len(unhealthy) > 0 {
		c.Degraded = row(metav1.ConditionTrue, ReasonPodsUnhealthy, MessageUnhealthy, unhealthy, phases)
	} else {
		c.Degraded = row(metav1.ConditionFalse, ReasonNotDegraded, MessageDesired, nil, nil)
	}
	return c
}

func row(status metav1.ConditionStatus, reason, text string, pods []string, phases []corev1.PodPhase) Verdict {
	return Verdict{Status: status, Reason: reason, text: text, Pods: slices.Sorted(slices.Values(pods)), Phases: phases}
}
