package stackable

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// operatorRS is the status what stackabletech/operator-rs shipped
// computes (crates/stackable-operator/src/status/condition/), in the
// order of its ClusterConditionSet (mod.rs: Available, Degraded,
// Progressing, ReconciliationPaused, Stopped), without reasons:
//   - statefulset.rs and deployment.rs: a workload is Available iff
//     spec.replicas == status.availableReplicas and replicas != 0;
//     daemonset.rs: iff status.numberReady > 0. No pod phase is read, and
//     nothing gives Unknown. Each kind's builder keeps the highest status
//     of its workloads (True < False < Unknown, the enum's order), with
//     the message "All <Kind> have the requested amount of ready
//     replicas." or "<Kind> ["a", "b"] missing ready replicas." (Rust's
//     debug form of the sorted names); there is one builder per kind
//     among the roles, in the order the roles first name them.
//   - mod.rs's compute_conditions merges the builders' Available with
//     update_message: the higher status wins, equal ones join their
//     messages with a newline.
//   - operations.rs: ReconciliationPaused True iff
//     clusterOperation.reconciliationPaused; Stopped Unknown when both
//     switches are set (pausing wins), else True iff stopped.
//   - No builder makes Degraded or Progressing: operator-rs defines the
//     types and never computes them, so they are not written.
func operatorRS(s ClusterState) []Condition {
	var kinds []Kind
	byKind := map[Kind][]WorkloadState{}
	for _, w := range s.Workloads {
		if _, ok := byKind[w.Kind]; !ok {
			kinds = append(kinds, w.Kind)
		}
		byKind[w.Kind] = append(byKind[w.Kind], w)
	}
	var out []Condition
	var available *Condition
	for _, k := range kinds {
		b := builderAvailable(k, byKind[k])
		switch {
		case available == nil:
			available = &b
		case rsRank(b.Status) == rsRank(available.Status):
			available.Message += "\n" + b.Message
		case rsRank(b.Status) > rsRank(available.Status):
			available = &b
		}
	}
	if available != nil {
		out = append(out, *available)
	}
	op := s.Cluster.Spec.ClusterOperation
	paused := Condition{Type: TypeReconciliationPaused, Status: metav1.ConditionFalse, Message: "The cluster is reconciled normally."}
	if op.ReconciliationPaused {
		paused.Status, paused.Message = metav1.ConditionTrue, "The cluster reconciliation is paused. Only the cluster status is reconciled."
	}
	stopped := Condition{Type: TypeStopped, Status: metav1.ConditionFalse, Message: "The cluster is running."}
	switch {
	case op.Stopped && op.ReconciliationPaused:
		stopped.Status, stopped.Message = metav1.ConditionUnknown,
			"The cluster stopped status could not be determined. This might be due to the cluster reconciliation being paused."
	case op.Stopped:
		stopped.Status, stopped.Message = metav1.ConditionTrue, "The cluster is stopped."
	}
	return append(out, paused, stopped)
}

// builderAvailable is one kind's ConditionBuilder's Available.
func builderAvailable(k Kind, ws []WorkloadState) Condition {
	var missing []string
	for _, w := range ws {
		ok := w.Replicas == w.AvailableReplicas && w.Replicas != 0
		if k == DaemonSet {
			ok = w.NumberReady > 0
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("%q", w.Name))
		}
	}
	plural := string(k)
	if k == Deployment {
		plural = "Deployments" // deployment.rs's wording; the others say "All StatefulSet"
	}
	if len(missing) == 0 {
		return Condition{Type: TypeAvailable, Status: metav1.ConditionTrue,
			Message: "All " + plural + " have the requested amount of ready replicas."}
	}
	slices.Sort(missing)
	return Condition{Type: TypeAvailable, Status: metav1.ConditionFalse,
		Message: string(k) + " [" + strings.Join(missing, ", ") + "] missing ready replicas."}
}

// rsRank is operator-rs's order of ClusterConditionStatus.
func rsRank(s metav1.ConditionStatus) int {
	switch s {
	case metav1.ConditionTrue:
		return 0
	case metav1.ConditionFalse:
		return 1
	}
	return 2
}
