package staticpod

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Backoff is the delay between a fallback and the retry of its revision:
// First, doubled for each earlier retry of that revision, at most Max.
type Backoff struct {
	First, Max time.Duration
}

// Delay is the wait before retry number retries+1.
func (b Backoff) Delay(retries int) time.Duration {
	d := b.First
	for i := 0; i < retries && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// OperatorParams are the operator's parameters.
type OperatorParams struct {
	Backoff Backoff
	// NoRetry are the reasons after which a revision is never retried.
	NoRetry []Reason
	// ConditionType is the condition the operator writes.
	ConditionType string
	// DegradedUntilReady keeps the condition True from the fallback until
	// the failed revision or a later one is ready, retries included;
	// otherwise it is True only while the mirror pod carries the
	// fallback annotations.
	DegradedUntilReady bool
	// Describe is the condition's message for a fallback.
	Describe func(Fallback) string
}

// Fallback is what the operator remembers of the last fallback on a node.
type Fallback struct {
	ForRevision int    // the failed revision; 0 if the annotation was not a number
	ToRevision  int    // the revision the node fell back to
	Reason      Reason // from the annotations
	Message     string
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
	// termination.log or its container's last state), when known.
	Termination string
}

// Condition is a condition to write; the caller stamps the transition
// time from its clock when the status changes.
type Condition struct {
	Type    string
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// OperatorDecision is the operator's answer to one look at a node.
type OperatorDecision struct {
	Condition Condition
	// Retry: install Memory.ForRevision again now.
	Retry bool
	// Memory is to be passed back at the next look; nil: nothing to
	// remember.
	Memory *Fallback
	// Next is the retry instant while waiting for it; zero otherwise.
	Next time.Time
}

// Operate decides for the operator of one node. mem is the last decision's
// Memory.
func Operate(p OperatorParams, mem *Fallback, n Node, now time.Time) OperatorDecision {
	none := OperatorDecision{Condition: Condition{Type: p.ConditionType, Status: metav1.ConditionFalse, Reason: "AsExpected"}}
	seen, carried := fallbackOn(n.Mirror, now)
	var m Fallback
	switch {
	case carried && (mem == nil || !mem.same(seen)):
		m = seen
		if mem != nil && mem.ForRevision == m.ForRevision {
			m.Retries = mem.Retries
			if mem.Retried {
				m.Retries++
			}
		}
	case mem == nil:
		return none
	case !carried && n.Mirror != nil && n.Mirror.Ready && n.Mirror.Revision >= mem.ForRevision:
		// 003 §Retries, §User Stories 4: the failed revision (retried) or
		// a later one is ready.
		return none
	default:
		m = *mem
	}
	if m.Termination == "" {
		m.Termination = n.Termination
	}
	d := OperatorDecision{Condition: none.Condition, Memory: &m}
	if carried || p.DegradedUntilReady {
		// 003 §Retries, §User Stories 2 and 3.
		d.Condition.Status, d.Condition.Reason, d.Condition.Message = metav1.ConditionTrue, string(m.Reason), p.Describe(m)
	}
	// A target other than the failed revision is a new configuration: the
	// operator rolls it out as any other, it is no retry.
	if m.Retried || m.ForRevision == 0 || m.ForRevision != n.Target || slices.Contains(p.NoRetry, m.Reason) {
		return d
	}
	if due := m.At.Add(p.Backoff.Delay(m.Retries)); now.Before(due) {
		d.Next = due
		return d
	}
	d.Retry, m.Retried = true, true
	return d
}

// fallbackOn reads the fallback annotations of a mirror pod.
func fallbackOn(pod *Mirror, now time.Time) (Fallback, bool) {
	if pod == nil {
		return Fallback{}, false
	}
	forRevision, ok := pod.Annotations[AnnotationFallbackForRevision]
	if !ok {
		return Fallback{}, false
	}
	r, err := strconv.Atoi(forRevision)
	if err != nil || r < 0 {
		r = 0
	}
	return Fallback{
		ForRevision: r, ToRevision: pod.Revision,
		Reason:  Reason(pod.Annotations[AnnotationFallbackReason]),
		Message: pod.Annotations[AnnotationFallbackMessage],
		PodName: pod.Name, UID: pod.UID, At: now,
	}, true
}

// same tells whether f is the fallback the operator already knows.
func (f *Fallback) same(g Fallback) bool {
	return f.UID == g.UID && f.ForRevision == g.ForRevision && f.Reason == g.Reason && f.Message == g.Message
}

// describeSeed carries the fallback message and the termination message
// (003 §Proposal step 1, §User Stories 2 and 3).
func describeSeed(f Fallback) string {
	msg := fmt.Sprintf("Revision %d failed to become ready and the node fell back to revision %d (%s): %s",
		f.ForRevision, f.ToRevision, f.Reason, f.Message)
	if f.Termination != "" {
		msg += fmt.Sprintf("\nTermination message of revision %d: %s", f.ForRevision, f.Termination)
	}
	return msg
}

// describeLibraryGo is library-go's text, which names the failed revision
// where it says "rolled back to".
func describeLibraryGo(f Fallback) string {
	return fmt.Sprintf("a static pod %v was rolled back to revision %v due to %v", f.PodName, f.ForRevision, f.Message)
}
