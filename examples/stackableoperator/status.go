package stackableoperator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// condition is one entry of a SampleCluster's status.conditions, with the
// ADR's lastProbeTime.
type condition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	LastProbeTime      *metav1.Time `json:"lastProbeTime,omitempty"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
}

const (
	statusTrue    = "True"
	statusFalse   = "False"
	statusUnknown = "Unknown"
)

// roleState is how many replicas a role wants and has available.
type roleState struct {
	role               string
	desired, available int32
}

// observation is what the conditions are computed from: each role's
// replicas and the cluster's pods that are Failed or whose phase is
// Unknown (their node stopped reporting), by name.
type observation struct {
	roles           []roleState
	failed, unknown []string
}

// replicaSummary says, role by role, how many replicas are available of
// those wanted: "server 2/3, web 2/2".
func (ob observation) replicaSummary() string {
	parts := make([]string, len(ob.roles))
	for i, r := range ob.roles {
		parts[i] = fmt.Sprintf("%s %d/%d", r.role, r.available, r.desired)
	}
	if len(parts) == 0 {
		return "no roles"
	}
	return strings.Join(parts, ", ")
}

// complete: every role has exactly the replicas it wants available.
func (ob observation) complete() bool {
	return !slices.ContainsFunc(ob.roles, func(r roleState) bool { return r.available != r.desired })
}

// short: some role has fewer replicas available than it wants.
func (ob observation) short() bool {
	return slices.ContainsFunc(ob.roles, func(r roleState) bool { return r.available < r.desired })
}

// conditions computes the cluster's conditions from ADR027's table:
// Available from the replicas, Unknown when a pod's phase is; Progressing
// while replicas are missing unless a pod failed; Degraded when replicas
// are missing and a pod failed or is unknown; Paused and Stopped from the
// operator-command annotation. A stopped cluster runs nothing, so it is
// neither available, nor progressing, nor degraded.
func conditions(pc *productCluster, ob observation) []condition {
	summary := ob.replicaSummary()
	var available, progressing, degraded condition
	switch {
	case pc.stopped():
		available = condition{Status: statusFalse, Reason: "ClusterStopped", Message: "stopped on request: no replica runs"}
		progressing = condition{Status: statusFalse, Reason: "ClusterStopped", Message: "stopped on request: nothing to roll out"}
		degraded = condition{Status: statusFalse, Reason: "ClusterStopped", Message: "stopped on request"}
	default:
		switch {
		case ob.complete():
			available = condition{Status: statusTrue, Reason: "AllReplicasAvailable", Message: "all replicas available: " + summary}
		case len(ob.unknown) > 0:
			available = condition{Status: statusUnknown, Reason: "PodStateUnknown",
				Message: fmt.Sprintf("cannot tell, pods in phase Unknown: %s (%s)", strings.Join(ob.unknown, ", "), summary)}
		default:
			available = condition{Status: statusFalse, Reason: "ReplicasMissing", Message: "replicas missing: " + summary}
		}
		switch {
		case ob.complete():
			progressing = condition{Status: statusFalse, Reason: "RolloutComplete", Message: "nothing to roll out: " + summary}
		case len(ob.failed) > 0:
			progressing = condition{Status: statusFalse, Reason: "RolloutStalled",
				Message: fmt.Sprintf("stalled, pods failed: %s (%s)", strings.Join(ob.failed, ", "), summary)}
		default:
			progressing = condition{Status: statusTrue, Reason: "RollingOut", Message: "waiting for replicas: " + summary}
		}
		if unhealthy := append(slices.Clone(ob.failed), ob.unknown...); ob.short() && len(unhealthy) > 0 {
			slices.Sort(unhealthy)
			degraded = condition{Status: statusTrue, Reason: "PodsNotHealthy",
				Message: fmt.Sprintf("replicas lost to failed or unreachable pods: %s (%s)", strings.Join(unhealthy, ", "), summary)}
		} else {
			degraded = condition{Status: statusFalse, Reason: "Healthy", Message: "no failed or unreachable pod is missed"}
		}
	}
	paused := condition{Status: statusFalse, Reason: "ReconcileActive", Message: "the operator applies the spec"}
	if pc.paused() {
		paused = condition{Status: statusTrue, Reason: "PauseRequested", Message: "operator-command Paused: the workloads are left as they are"}
	}
	stopped := condition{Status: statusFalse, Reason: "NoStopRequested", Message: "the cluster runs its roles"}
	if pc.stopped() {
		stopped = condition{Status: statusTrue, Reason: "StopRequested", Message: "operator-command Stopped: every role is scaled to zero"}
	}
	available.Type, progressing.Type, degraded.Type, paused.Type, stopped.Type = "Available", "Progressing", "Degraded", "Paused", "Stopped"
	return []condition{available, progressing, degraded, paused, stopped}
}

// merge gives want the times of a write at now over have, and says
// whether anything a reader sees changed (no write otherwise): a
// transition keeps its time while the status stays, every condition of a
// write is probed at now, and conditions of other types are kept.
func merge(have, want []condition, now time.Time) ([]condition, bool) {
	at := metav1.NewTime(now)
	changed := false
	out := make([]condition, 0, len(want))
	for _, w := range want {
		c := w
		c.LastProbeTime, c.LastTransitionTime = &at, &at
		i := slices.IndexFunc(have, func(h condition) bool { return h.Type == w.Type })
		switch {
		case i < 0:
			changed = true
		case have[i].Status == w.Status && have[i].LastTransitionTime != nil:
			c.LastTransitionTime = have[i].LastTransitionTime
			changed = changed || have[i].Reason != w.Reason || have[i].Message != w.Message
		default:
			changed = true
		}
		out = append(out, c)
	}
	for _, h := range have {
		if !slices.ContainsFunc(want, func(w condition) bool { return w.Type == h.Type }) {
			out = append(out, h)
		}
	}
	return out, changed
}
