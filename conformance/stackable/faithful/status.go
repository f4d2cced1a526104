package faithful

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// table is the ADR's table (004 §Implementation details) over what the
// operator observed, in the variant's words: statuses by the rows, each
// variant taking its own answer where rows overlap or leave a case open.
func (o *Operator) table(obs observed, command string) []metav1.Condition {
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		if o.v == Terse {
			reason = ""
		}
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
	}
	var avail, prog, degr metav1.Condition
	switch {
	case obs.equal:
		avail = cond("Available", metav1.ConditionTrue, "AllReplicasReady", "every role runs the replicas it asks for")
	case len(obs.unknown) > 0:
		avail = cond("Available", metav1.ConditionUnknown, "PodStateUnknown", "pods of unknown phase: "+strings.Join(obs.unknown, ", "))
	default:
		avail = cond("Available", metav1.ConditionFalse, "MissingReplicas", "some role lacks replicas")
	}
	switch {
	case obs.equal:
		prog = cond("Progressing", metav1.ConditionFalse, "Settled", "nothing left to roll out")
	case obs.live && (o.v == Requeue || len(obs.failed) == 0):
		// Where the rows overlap (a pod Failed, another not), Requeue
		// takes the True row: the other pods still come up.
		msg := "replicas coming up"
		if len(obs.failed) > 0 {
			msg += "; failed: " + strings.Join(obs.failed, ", ")
		}
		prog = cond("Progressing", metav1.ConditionTrue, "RollingOut", msg)
	case len(obs.failed) > 0:
		prog = cond("Progressing", metav1.ConditionFalse, "PodsFailed", "stuck on failed pods: "+strings.Join(obs.failed, ", "))
	default:
		prog = cond("Progressing", o.open(metav1.ConditionTrue), "NoPods", "no pod yet")
	}
	bad := append(append([]string{}, obs.unknown...), obs.failed...)
	switch {
	case obs.fewer && len(bad) > 0:
		degr = cond("Degraded", metav1.ConditionTrue, "UnhealthyPods", "unhealthy pods: "+strings.Join(bad, ", "))
	case obs.equal:
		degr = cond("Degraded", metav1.ConditionFalse, "Healthy", "no role is short of replicas")
	default:
		degr = cond("Degraded", o.open(metav1.ConditionFalse), "InFlight", "replicas are changing")
	}
	paused := cond("Paused", metav1.ConditionFalse, "Reconciled", "the operator reconciles the cluster")
	if command == "Paused" {
		paused = cond("Paused", metav1.ConditionTrue, "UserPaused", "the operator leaves the cluster alone")
	}
	stopped := cond("Stopped", metav1.ConditionFalse, "Running", "the cluster runs")
	if command == "Stopped" {
		stopped = cond("Stopped", metav1.ConditionTrue, "UserStopped", "every replica set to 0")
		avail = cond("Available", metav1.ConditionFalse, "Stopped", "the cluster is stopped")
		if o.v == Requeue {
			prog = cond("Progressing", metav1.ConditionFalse, "Stopped", "the cluster is stopped")
			degr = cond("Degraded", metav1.ConditionFalse, "Stopped", "the cluster is stopped")
		}
	}
	if o.v == Terse {
		return []metav1.Condition{stopped, paused, degr, prog, avail}
	}
	return []metav1.Condition{avail, degr, prog, paused, stopped}
}

// open is Terse's status where the table leaves a case open (Unknown),
// and otherwise def.
func (o *Operator) open(def metav1.ConditionStatus) metav1.ConditionStatus {
	if o.v == Terse {
		return metav1.ConditionUnknown
	}
	return def
}

// condition is an entry of status.conditions as the variants write it:
// Terse with a lastProbeTime, Requeue without.
type condition struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	LastProbeTime      *metav1.Time           `json:"lastProbeTime,omitempty"`
	LastTransitionTime metav1.Time            `json:"lastTransitionTime"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}

// current are the cluster's conditions.
func (o *Operator) current(u *unstructured.Unstructured) []condition {
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []condition
	data, err := json.Marshal(raw)
	if err == nil {
		_ = json.Unmarshal(data, &out)
	}
	return out
}

// set puts c into conds at now: lastTransitionTime moved only when the
// status changes.
func set(conds []condition, c metav1.Condition, now time.Time) []condition {
	at := metav1.NewTime(now.Truncate(time.Second))
	next := condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, LastTransitionTime: at}
	for i, old := range conds {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			next.LastTransitionTime = old.LastTransitionTime
		}
		next.LastProbeTime = old.LastProbeTime
		conds[i] = next
		return conds
	}
	return append(conds, next)
}

// write stores conds when they differ from what the cluster has, Terse
// stamping lastProbeTime on every condition of a write.
func (o *Operator) write(ctx context.Context, u *unstructured.Unstructured, conds []condition) error {
	before, _ := json.Marshal(o.current(u))
	after, _ := json.Marshal(conds)
	if string(before) == string(after) {
		return nil
	}
	if o.v == Terse {
		at := metav1.NewTime(o.clk.Now().Truncate(time.Second))
		for i := range conds {
			conds[i].LastProbeTime = &at
		}
	} else {
		for i := range conds {
			conds[i].LastProbeTime = nil
		}
	}
	var raw []any
	data, err := json.Marshal(conds)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if err := unstructured.SetNestedSlice(u.Object, raw, "status", "conditions"); err != nil {
		return err
	}
	return o.c.Status().Update(ctx, u)
}

// runtimeConvert reads an unstructured map into out.
func runtimeConvert(m map[string]any, out any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, out)
}
