package stackable

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterState is what the operator decides a SampleCluster's status
// from, and who decides.
type ClusterState struct {
	// Cluster is the SampleCluster as read.
	Cluster Cluster
	// Workloads are the cluster's, one per role in the spec's order, as
	// observed after the reconcile's writes; a role whose workload does
	// not exist counts as a workload with none of its replicas.
	Workloads []WorkloadState
	// Profile is the design the status is decided by (the seed or operator-rs).
	Profile Profile
	// Flaw is "" for the reference.
	Flaw Flaw
}

// Table is the cluster's conditions without times, in the order they are
// written: the rows over its workloads (Over), then Paused and Stopped from
// the annotation (004 §Implementation details). Stopped overrides the merged
// rows: Available False with the ADR's example message "No Pods running." (004
// §Set Status Conditions Only; decision 004, conformance/stackable/README.md:
// Stopped means 0 replicas and Available False), Progressing and Degraded
// False, all with reason Stopped. The operator-rs profile is operatorRS's.
func Table(s ClusterState) []Condition {
	if s.Profile == ProfileOperatorRS {
		return operatorRS(s)
	}
	ws := slices.Clone(s.Workloads)
	for i := range ws {
		if s.Flaw == IgnoresUnknown {
			ws[i].Pods = unknownAsRunning(ws[i].Pods)
		}
	}
	m := Over(ws)
	if s.Flaw == NeverDegraded {
		m.Degraded = row(metav1.ConditionFalse, ReasonNotDegraded, MessageDesired, nil, nil)
	}
	if s.Flaw == ProgressingWhenAvailable && m.Progressing.Reason == ReasonReplicasAvailable {
		m.Progressing = row(metav1.ConditionTrue, ReasonReplicasStarting, MessageStarting, nil, nil)
	}
	if s.Flaw == SurplusAvailable && !slices.ContainsFunc(ws, func(w WorkloadState) bool { return w.AvailableReplicas < w.Replicas }) {
		m.Available = row(metav1.ConditionTrue, ReasonAvailable, MessageDesired, nil, nil)
	}
	if s.Flaw == MergesPerWorkload {
		m.Available = perWorkload(ws)
	}
	paused := row(metav1.ConditionFalse, ReasonReconciling, MessageReconciled, nil, nil)
	if s.Cluster.Paused(s.Profile) && s.Flaw != SilentPause {
		paused = row(metav1.ConditionTrue, ReasonPaused, MessagePaused, nil, nil)
	}
	stopped := row(metav1.ConditionFalse, ReasonRunning, MessageNotStopped, nil, nil)
	if s.Cluster.Stopped(s.Profile) {
		stopped = row(metav1.ConditionTrue, ReasonStopped, MessageStopped, nil, nil)
		m.Available = row(metav1.ConditionFalse, ReasonStopped, MessageNoPods, nil, nil)
		if s.Flaw == StoppedAvailable && !slices.ContainsFunc(ws, func(w WorkloadState) bool { return w.AvailableReplicas > 0 }) {
			m.Available = row(metav1.ConditionTrue, ReasonAvailable, MessageDesired, nil, nil)
		}
		m.Progressing = row(metav1.ConditionFalse, ReasonStopped, MessageStopped, nil, nil)
		m.Degraded = row(metav1.ConditionFalse, ReasonStopped, MessageStopped, nil, nil)
	}
	out := []Condition{m.Available.condition(TypeAvailable), m.Progressing.condition(TypeProgressing),
		m.Degraded.condition(TypeDegraded), paused.condition(TypePaused), stopped.condition(TypeStopped)}
	if s.Flaw == SentenceReasons {
		for i := range out {
			out[i].Reason = out[i].Message
		}
	}
	if s.Flaw == VerbatimExamples {
		for i, v := range []Verdict{m.Available, m.Progressing, m.Degraded} {
			out[i].Message = v.text
		}
	}
	return out
}

// perWorkload is the MergesPerWorkload flaw's Available: each workload's
// alone, False over Unknown over True.
func perWorkload(ws []WorkloadState) Verdict {
	out := Evaluate(WorkloadState{}).Available
	for _, w := range ws {
		v := Evaluate(w).Available
		if v.Status == metav1.ConditionFalse || v.Status == metav1.ConditionUnknown && out.Status == metav1.ConditionTrue {
			out = v
		}
	}
	return out
}

// unknownAsRunning is the IgnoresUnknown flaw's reading of the pods.
func unknownAsRunning(pods []Pod) []Pod {
	out := slices.Clone(pods)
	for i := range out {
		if out[i].Phase == corev1.PodUnknown {
			out[i].Phase = corev1.PodRunning
		}
	}
	return out
}

// Status is the cluster's conditions given those it has (prev) and now, and
// whether to write them. It writes only when a condition's status, reason or
// message changes, or one is missing (no churn); a write stamps every
// condition with now as lastProbeTime (the ADR's examples: all conditions of a
// write share it; operator-rs has no lastProbeTime) and moves a
// lastTransitionTime only when its status changes (decision 004,
// conformance/stackable/README.md). Conditions of other types in prev are
// kept, after the table's. Without a write, conds is prev.
func Status(s ClusterState, prev []Condition, now time.Time) (conds []Condition, write bool) {
	return s.stamp(Table(s), prev, now)
}

// stamp gives want the times of a write at now over prev, if anything
// changed: lastProbeTime but in the operator-rs profile and the
// NoProbeTime flaw; every lastTransitionTime moved by the
// MovingTransition flaw.
func (s ClusterState) stamp(want, prev []Condition, now time.Time) ([]Condition, bool) {
	probe := s.Profile != ProfileOperatorRS && s.Flaw != NoProbeTime
	moving := s.Flaw == MovingTransition
	find := func(typ string) *Condition {
		if i := slices.IndexFunc(prev, func(c Condition) bool { return c.Type == typ }); i >= 0 {
			return &prev[i]
		}
		return nil
	}
	changed := false
	for _, w := range want {
		p := find(w.Type)
		changed = changed || p == nil || p.Status != w.Status || p.Reason != w.Reason || p.Message != w.Message
	}
	if !changed {
		return prev, false
	}
	at := metav1.NewTime(now).Rfc3339Copy()
	out := make([]Condition, 0, len(want)+len(prev))
	for _, w := range want {
		c := w
		if probe {
			c.LastProbeTime = at
		}
		c.LastTransitionTime = at
		if p := find(w.Type); p != nil && p.Status == w.Status && !p.LastTransitionTime.IsZero() && !moving {
			c.LastTransitionTime = p.LastTransitionTime
		}
		if s.Flaw == NoTransitionTime {
			c.LastTransitionTime = metav1.Time{}
		}
		out = append(out, c)
	}
	for _, p := range prev {
		if !slices.ContainsFunc(want, func(w Condition) bool { return w.Type == p.Type }) {
			out = append(out, p)
		}
	}
	return out, true
}
