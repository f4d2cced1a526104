package stackable

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is one status condition of a SampleCluster as the ADR writes
// them (004 §Set Status Conditions Only's examples): metav1.Condition has
// no lastProbeTime, so the type is this package's.
type Condition struct {
	// Type is the condition's type (Available, Progressing, Degraded, Paused, Stopped).
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status metav1.ConditionStatus `json:"status"`
	// LastProbeTime is when the operator last wrote the conditions; zero in
	// the operator-rs profile, which has none.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase word for why the condition has its status.
	Reason string `json:"reason,omitempty"`
	// Message says why for a person; empty when there is nothing to say.
	Message string `json:"message,omitempty"`
}

// The condition types of 004 §Implementation details, and operator-rs's
// name for Paused (docs/upstream.md, seed 004).
const (
	TypeAvailable            = "Available"
	TypeProgressing          = "Progressing"
	TypeDegraded             = "Degraded"
	TypePaused               = "Paused"
	TypeStopped              = "Stopped"
	TypeReconciliationPaused = "ReconciliationPaused"
)

// The reasons (the ADR gives none; decision 004,
// conformance/stackable/README.md names them in CamelCase), one per row of 004
// §Implementation details, and Stopped for the conditions a stop overrides.
const (
	ReasonAvailable           = "Available"
	ReasonReplicasUnavailable = "ReplicasUnavailable"
	ReasonPodPhaseUnknown     = "PodPhaseUnknown"
	ReasonReplicasStarting    = "ReplicasStarting"
	ReasonReplicasAvailable   = "ReplicasAvailable"
	ReasonPodFailed           = "PodFailed"
	ReasonPodsUnhealthy       = "PodsUnhealthy"
	ReasonNotDegraded         = "NotDegraded"
	ReasonPaused              = "Paused"
	ReasonReconciling         = "Reconciling"
	ReasonStopped             = "Stopped"
	ReasonRunning             = "Running"
)

// The Example Message column of 004 §Implementation details, verbatim;
// Verdict.Message puts the offending pods and their phases in place of the
// placeholders.
const (
	MessageDesired    = "The cluster has the desired amount of replicas."
	MessageNotDesired = "The cluster does not have the desired amount of replicas."
	MessageUnknown    = "The cluster has not the desired amount of replicas. At least one Pod [Pod1,Pod2] has phase Unknown."
	MessageStarting   = "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."
	MessageFailed     = "The cluster does not have the desired amount of replicas. At least one Pod [Pod1,Pod2] has Phase Failed."
	MessageUnhealthy  = "The cluster has less than the desired amount of replicas. At least one Pod [Pod1,Pod2] has Phase [Unknown,Failed]."
	MessagePaused     = "The cluster is currently not reconciled by the operator."
	MessageReconciled = "The cluster is currently reconciled by the operator."
	MessageStopped    = "The cluster is currently stopped. All replicas are set to 0."
	MessageNotStopped = "The cluster is currently not stopped."
	MessageNoPods     = "No Pods running." // 004 §Set Status Conditions Only, the stopped cluster's example
	placeholderPods   = "[Pod1,Pod2]"
	placeholderPhases = "[Unknown,Failed]"
)

// Verdict is one condition type's row of the table for one workload or a
// merge of them: its status, reason, and the pods the row's message names
// with the phases seen among them.
type Verdict struct {
	// Status is the row's condition status.
	Status metav1.ConditionStatus
	// Reason is the row's reason.
	Reason string
	// Pods are the offending pods' names, sorted.
	Pods []string
	// Phases are the phases seen among Pods, Unknown before Failed.
	Phases []corev1.PodPhase
	// text is the row's Example Message, placeholders and all.
	text string
}

// Message is the row's Example Message with the pods and phases in place
// of "[Pod1,Pod2]" and "[Unknown,Failed]": names in brackets,
// comma-separated without spaces (decision 004, conformance/stackable/README.md).
func (v Verdict) Message() string {
	phases := make([]string, len(v.Phases))
	for i, p := range v.Phases {
		phases[i] = string(p)
	}
	m := strings.Replace(v.text, placeholderPods, "["+strings.Join(v.Pods, ",")+"]", 1)
	return strings.Replace(m, placeholderPhases, "["+strings.Join(phases, ",")+"]", 1)
}

// condition is the verdict as a condition of type typ, without times.
func (v Verdict) condition(typ string) Condition {
	return Condition{Type: typ, Status: v.Status, Reason: v.Reason, Message: v.Message()}
}
