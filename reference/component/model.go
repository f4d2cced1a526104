package component

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// Failing is Degraded's older name (001 §What should an operator report,
// honored by components 2; decision 001,
// conformance/clusteroperator/README.md: the same condition).
const Failing configv1.ClusterStatusConditionType = "Failing"

// Kind is the workload an operand is.
type Kind string

// The operand kinds the operator rolls out.
const (
	Deployment Kind = "Deployment" // Replicas pods, anywhere
	DaemonSet  Kind = "DaemonSet"  // one pod per node of Nodes
)

// Level is what a pod runs, or what an operand's spec asks for.
type Level struct {
	// Version is the operand version, as the operator's versions name it.
	Version string
	// Config names a configuration of the operand (a generation or a
	// hash); "" when there is none to roll out.
	Config string
}

// Pod is one pod of an operand.
type Pod struct {
	// Name is the pod's name.
	Name string
	Node string // where it runs; what a DaemonSet's pods are counted by
	Level
	// Ready is the pod's Ready condition: it serves.
	Ready bool
	// Since is when the pod last changed: started, or turned ready or not
	// ready. A change of a pod at the target is progress of the rollout.
	Since time.Time
}

// Operand is one workload of the operator as observed.
type Operand struct {
	// Kind is the workload's kind (Deployment or DaemonSet).
	Kind     Kind
	Name     string   // unique among the operands: its entry in versions
	Replicas int      // Deployment: the replicas it must run
	Nodes    []string // DaemonSet: the nodes it must run on
	// Spec is the level its spec asks for now: what the operator last
	// wrote (the workload controller moves the pods to it).
	Spec Level
	// Updated is when its spec was last written (e.g. the operator's
	// managedFields time). A rollout's progress is counted from it, so
	// a restarted operator knows how long the operand has been moving;
	// with it and every Pod.Since zero, the operand is never found stuck.
	Updated time.Time
	// Pods are the operand's pods as observed.
	Pods []Pod
}

// ApplyError is what the operator hit when it last wrote its operands or
// their configuration, as two texts for the two messages of 001
// §Conditions: Progressing's terse summary and Degraded's detail.
type ApplyError struct {
	Summary string // "a required object is missing": a few words
	Detail  string // "could not update deployment example: ...": enough to triage
}

// Blocker is a condition the administrator must correct before an upgrade
// (001 §What should an operator report, honored by components 4).
type Blocker struct {
	Reason  string // CamelCase; "AdminActionRequired" when empty or not CamelCase
	Message string // what the administrator must fix
}

// Input is what the operator observes at one look.
type Input struct {
	// Status is its ClusterOperator's status as it stands: the operator
	// keeps its memory there (which versions it reached, whether it was
	// rolling out), so a restarted operator carries on where it stopped.
	Status configv1.ClusterOperatorStatus
	// Operands are the operator's workloads as observed.
	Operands []Operand
	// Config is the configuration the operands must run ("" for none).
	Config     string
	ApplyError *ApplyError // nil when the last apply succeeded
	// Blockers are what the administrator must fix before an upgrade; none: upgradeable.
	Blockers []Blocker
	// FirstLook is set by the adapter on the first look of a process (a
	// start or a restart). The reference decides nothing from it, as it
	// keeps its memory in its status; the flaw ProgressingAtRest does.
	FirstLook bool
}

// Spec is an operand spec to write: the level the operand must run.
type Spec struct {
	// Kind is the workload's kind.
	Kind Kind
	// Name is the workload's name, in the operator's namespace.
	Name string
	// Level is what the workload's pods must run.
	Level Level
}

// Output is what the operator decides at one look.
type Output struct {
	// Specs are the operands whose spec must change, in Input order.
	Specs []Spec
	// Writes are the status updates to make, in order, each the whole
	// status as it must stand after it; none when nothing changed. The
	// reference makes at most one (001 §Status: atomic).
	Writes []configv1.ClusterOperatorStatus
	// Next is when to look again if nothing changes; zero for never.
	Next time.Time
}
