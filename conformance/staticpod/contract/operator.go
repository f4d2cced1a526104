package contract

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fallback is what the operator remembers of the last fallback on a node:
// the world keeps it in the operator's status (a restart finds it) and
// gives it back at the next look.
type Fallback struct {
	ForRevision int    // the failed revision; 0 if the annotation was not a number
	ToRevision  int    // the revision the node fell back to
	Reason      Reason // from the annotations
	Message     string // from the annotations
	Termination string // the failed revision's termination message
	PodName     string // name of the mirror pod that carried the annotations
	// UID of that mirror pod: a mirror pod carrying the annotations with
	// another UID is another fallback.
	UID string
	At  time.Time // when the operator first saw it
	// Retries of ForRevision made before this fallback.
	Retries int
	// Retried: the retry after this fallback has been asked for.
	Retried bool
}

// Node is what the operator sees of one node.
type Node struct {
	Target int     // the revision the operator wants on the node
	Mirror *Mirror // the operand's mirror pod; nil when there is none
	// Termination is the failed revision's termination message (from its
	// container's last state, as the mirror pod showed it), when known.
	Termination string
}

// Condition is a condition to write; the world stamps the transition
// time from its clock when the status changes.
type Condition struct {
	Type    string                 // Degraded, or StaticPodFallbackRevisionDegraded in the library-go profile
	Status  metav1.ConditionStatus // True, False or Unknown
	Reason  string                 // a CamelCase word
	Message string                 // for a human
}

// OperatorDecision is the operator's answer to one look at a node.
type OperatorDecision struct {
	Condition Condition // the condition the node's state asks for
	// Retry: install Memory.ForRevision again now.
	Retry bool
	// Memory is to be passed back at the next look; nil: nothing to
	// remember.
	Memory *Fallback
	// Next is the retry instant while waiting for it; zero otherwise.
	Next time.Time
}
