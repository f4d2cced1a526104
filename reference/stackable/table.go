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
	Name  string
	Phase corev1.PodPhase
}

// WorkloadState is what the table reads of one owned workload.
type WorkloadState struct {
	Kind Kind
	Name string
	// Replicas is spec.replicas (StatefulSet, Deployment) or
	// status.desiredNumberScheduled (DaemonSet); AvailableReplicas is
	// status.availableReplicas or status.numberAvailable (DESIGN 004).
	Replicas, AvailableReplicas int32
	// NumberReady is a DaemonSet's status.numberReady, which the
	// operator-rs profile reads instead (daemonset.rs).
	NumberReady int32
	// Pods are the workload's pods (by its selector) not being deleted.
	Pods []Pod
}

// Conditions are the table's three workload-derived rows.
type Conditions struct {
	Available, Progressing, Degraded Verdict
}

// Evaluate is 004 §Implementation details for one workload, row by row:
//   - Available True iff availableReplicas == replicas; else Unknown if
//     a pod has phase Unknown; else False.
//   - Progressing False iff availableReplicas == replicas; else False if
//     a pod has phase Failed (the third row wins where it overlaps the
//     first: a failed pod stops progress, DESIGN 004); else True, also
//     when no pod exists yet.
//   - Degraded True iff availableReplicas < replicas and a pod has phase
//     Unknown or Failed. The table leaves "fewer available, no pod
//     Unknown or Failed" open: that is progress, not degradation; and
//     availableReplicas > replicas is a scale-down in flight, not
//     degraded (DESIGN 004).
func Evaluate(w WorkloadState) Conditions {
	var unknown, failed, unhealthy []string
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
	var phases []corev1.PodPhase
	if len(unknown) > 0 {
		phases = append(phases, corev1.PodUnknown)
	}
	if len(failed) > 0 {
		phases = append(phases, corev1.PodFailed)
	}
	equal := w.AvailableReplicas == w.Replicas
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
	if w.AvailableReplicas < w.Replicas && len(unhealthy) > 0 {
		c.Degraded = row(metav1.ConditionTrue, ReasonPodsUnhealthy, MessageUnhealthy, unhealthy, phases)
	} else {
		c.Degraded = row(metav1.ConditionFalse, ReasonNotDegraded, MessageDesired, nil, nil)
	}
	return c
}

func row(status metav1.ConditionStatus, reason, text string, pods []string, phases []corev1.PodPhase) Verdict {
	return Verdict{Status: status, Reason: reason, text: text, Pods: slices.Sorted(slices.Values(pods)), Phases: phases}
}

// Merge is the cluster's rows over its workloads' (DESIGN 004):
// Available False if any workload's is False, else Unknown if any is
// Unknown, else True; Progressing True if any is True; Degraded True if
// any is True. Where workloads share the merged status with different
// reasons (Progressing False), the more telling wins: PodFailed over
// ReplicasAvailable. The message names the pods of every workload with
// the merged status and reason, sorted, and the phases seen among them.
// No workload at all gives every row as for a workload with all its
// replicas (0 == 0).
func Merge(ws []Conditions) Conditions {
	pick := func(get func(Conditions) Verdict, order []metav1.ConditionStatus, reasons []string) Verdict {
		var vs []Verdict
		for _, w := range ws {
			vs = append(vs, get(w))
		}
		return merge(vs, order, reasons)
	}
	if len(ws) == 0 {
		return Evaluate(WorkloadState{})
	}
	return Conditions{
		Available: pick(func(c Conditions) Verdict { return c.Available },
			[]metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown, metav1.ConditionTrue}, nil),
		Progressing: pick(func(c Conditions) Verdict { return c.Progressing },
			[]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}, []string{ReasonPodFailed}),
		Degraded: pick(func(c Conditions) Verdict { return c.Degraded },
			[]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse}, nil),
	}
}

// merge picks the first status of order that a verdict has, then the
// first of reasons among those verdicts (else the first verdict's), and
// joins the pods and phases of the verdicts with that status and reason.
func merge(vs []Verdict, order []metav1.ConditionStatus, reasons []string) Verdict {
	var out *Verdict
	for _, s := range order {
		for i := range vs {
			if vs[i].Status == s && (out == nil || reasonRank(vs[i].Reason, reasons) < reasonRank(out.Reason, reasons)) {
				out = &vs[i]
			}
		}
		if out != nil {
			break
		}
	}
	v := Verdict{Status: out.Status, Reason: out.Reason, text: out.text}
	var pods []string
	seen := map[corev1.PodPhase]bool{}
	for _, w := range vs {
		if w.Status == v.Status && w.Reason == v.Reason {
			pods = append(pods, w.Pods...)
			for _, p := range w.Phases {
				seen[p] = true
			}
		}
	}
	v.Pods = slices.Sorted(slices.Values(pods))
	for _, p := range []corev1.PodPhase{corev1.PodUnknown, corev1.PodFailed} {
		if seen[p] {
			v.Phases = append(v.Phases, p)
		}
	}
	return v
}

// reasonRank is a reason's place in reasons, those not listed after.
func reasonRank(reason string, reasons []string) int {
	if i := slices.Index(reasons, reason); i >= 0 {
		return i
	}
	return len(reasons)
}
