package stackable

import "time"

// Flaw is a deliberate deviation of the operator from seed 004, for the
// broken subjects that prove the STACKABLE rules can fail. "" is the
// reference. A flaw applies to the seed profile.
type Flaw string

// The flaws, each a single deviation.
const (
	// IgnoresUnknown reads a pod of phase Unknown as Running: Available
	// False instead of Unknown, and no Degraded for it (breaks 004
	// §Implementation details, Available Unknown and Degraded True).
	IgnoresUnknown Flaw = "ignores-unknown"
	// NeverDegraded always publishes Degraded False (breaks 004
	// §Implementation details, Degraded True).
	NeverDegraded Flaw = "never-degraded"
	// WritesWhilePaused keeps creating, updating and deleting the
	// workloads while the cluster is Paused (breaks 004 §Implementation
	// details, Paused True: "not reconciled by the operator").
	WritesWhilePaused Flaw = "writes-while-paused"
	// StopKeepsReplicas publishes Stopped True but leaves the workloads'
	// replicas as the roles ask (breaks 004 §Implementation details,
	// Stopped True: "All replicas are set to 0").
	StopKeepsReplicas Flaw = "stop-keeps-replicas"
	// StoppedAvailable publishes Available by the letter of its row while
	// stopped: True once 0 of 0 replicas are available (breaks decision 004,
	// conformance/stackable/README.md: Stopped means Available False).
	StoppedAvailable Flaw = "stopped-available"
	// MovingTransition sets every lastTransitionTime to the write's time,
	// whether its status changed or not (breaks decision 004,
	// conformance/stackable/README.md: it moves only with the status).
	MovingTransition Flaw = "moving-transition"
	// NoProbeTime omits lastProbeTime (departs from 004 §Set Status
	// Conditions Only's examples, where every condition carries it: a
	// Style rule's warning).
	NoProbeTime Flaw = "no-probe-time"
	// Late writes, at each reconcile, the conditions the reconcile before it
	// computed: one change behind (breaks decision 004,
	// conformance/stackable/README.md: the conditions match the table within
	// one reconcile).
	Late Flaw = "late"
	// SilentPause stops writing the workloads while Paused, as it must,
	// but publishes Paused False (breaks 004 §Implementation details,
	// Paused True).
	SilentPause Flaw = "silent-pause"
	// DesiredFromWorkload reads a role's desired replicas from its
	// workload's spec.replicas, not from the cluster's spec (breaks 004
	// §Implementation details, Available True: "The cluster has the
	// desired amount of replicas", which a paused or stopped cluster's
	// workloads no longer say).
	DesiredFromWorkload Flaw = "desired-from-workload"
	// SurplusAvailable publishes Available True when at least the desired
	// replicas are available (breaks 004 §Implementation details,
	// Available True iff availableReplicas == replicas).
	SurplusAvailable Flaw = "surplus-available"
	// MergesPerWorkload applies the Available rows to each workload and
	// merges them, False over Unknown (breaks 004 §Implementation details,
	// Available Unknown: "any_pod has phase == Unknown" over the cluster).
	MergesPerWorkload Flaw = "merges-per-workload"
	// VerbatimExamples writes the Example Message column as it is,
	// "[Pod1,Pod2]" and all (departs from the examples' point, naming the
	// offending pods: a Style rule's warning).
	VerbatimExamples Flaw = "verbatim-examples"
	// ProgressingWhenAvailable keeps Progressing True once every replica
	// is available (breaks 004 §Implementation details, Progressing False
	// iff availableReplicas == replicas).
	ProgressingWhenAvailable Flaw = "progressing-when-available"
	// Slow reconciles a cluster only SlowAfter after the event that asked
	// for it (breaks the reaction bound the rules judge with).
	Slow Flaw = "slow"
	// NoTransitionTime writes no lastTransitionTime (breaks 004 §Decision
	// Drivers' must-have "transition history").
	NoTransitionTime Flaw = "no-transition-time"
	// SentenceReasons writes each condition's message as its reason, as
	// the ADR's examples do (departs from Kubernetes' CamelCase reasons:
	// a Style rule's warning).
	SentenceReasons Flaw = "sentence-reasons"
	// StopKeepsDaemonSets scales the StatefulSets and Deployments of a
	// stopped cluster to 0 but leaves its DaemonSets running (breaks 004
	// §Implementation details, Stopped True: "All replicas are set to 0").
	StopKeepsDaemonSets Flaw = "stop-keeps-daemonsets"
)

// SlowAfter is how late the Slow flaw reconciles: beyond the rules'
// default reaction bound of 30 s.
const SlowAfter = 45 * time.Second

var flaws = []struct {
	flaw Flaw
	says string
}{
	{IgnoresUnknown, "reads a pod of phase Unknown as Running: Available False instead of Unknown, no Degraded for it"},
	{NeverDegraded, "always publishes Degraded False"},
	{WritesWhilePaused, "keeps creating, updating and deleting the workloads while Paused"},
	{StopKeepsReplicas, "publishes Stopped True but leaves the workloads' replicas"},
	{StoppedAvailable, "publishes Available by the letter of its row while stopped (True at 0 of 0 replicas)"},
	{MovingTransition, "moves every condition's lastTransitionTime to now on every write"},
	{NoProbeTime, "omits lastProbeTime"},
	{Late, "writes the conditions only at the next reconcile after a change: one change behind"},
	{SilentPause, "pauses, but publishes Paused False"},
	{DesiredFromWorkload, "reads the desired replicas from the workloads, not from the cluster's spec"},
	{SurplusAvailable, "publishes Available True when more replicas are available than desired"},
	{MergesPerWorkload, "applies the Available rows per workload and merges them, False over Unknown"},
	{VerbatimExamples, "writes the Example Message column verbatim, [Pod1,Pod2] and all"},
	{ProgressingWhenAvailable, "keeps Progressing True once every replica is available"},
	{Slow, "reconciles a cluster 45s after the event that asked for it, beyond the reaction bound"},
	{NoTransitionTime, "writes no lastTransitionTime"},
	{SentenceReasons, "writes each condition's message as its reason"},
	{StopKeepsDaemonSets, "stops the StatefulSets and Deployments but leaves the DaemonSets running"},
}

// Flaws lists every flaw, in a stable order, for a registry of broken
// subjects.
func Flaws() []Flaw {
	out := make([]Flaw, len(flaws))
	for i, f := range flaws {
		out[i] = f.flaw
	}
	return out
}

// Description is the flaw's one-line description, "" for the reference.
func (f Flaw) Description() string {
	for _, d := range flaws {
		if d.flaw == f {
			return d.says
		}
	}
	return ""
}
