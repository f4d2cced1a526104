package staticpod

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// Backoff is the delay between a fallback and the retry of its revision:
// First, doubled for each earlier retry of that revision, at most Max.
type Backoff struct {
	// First is the delay before the first retry, Max the cap of its doubling.
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
	// Backoff is the delay before a revision that fell back is retried.
	Backoff Backoff
	// NoRetry are the reasons after which a revision is never retried.
	NoRetry []contract.Reason
	// ConditionType is the condition the operator writes.
	ConditionType string
	// DegradedUntilReady keeps the condition True from the fallback until
	// the failed revision or a later one is ready, retries included;
	// otherwise it is True only while the mirror pod carries the
	// fallback annotations.
	DegradedUntilReady bool
	// Describe is the condition's message for a fallback.
	Describe func(contract.Fallback) string
}

// Operate decides for the operator of one node. mem is the last decision's
// Memory.
func Operate(p OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	none := contract.OperatorDecision{Condition: contract.Condition{Type: p.ConditionType, Status: metav1.ConditionFalse, Reason: "AsExpected"}}
	seen, carried := fallbackOn(n.Mirror, now)
	var m contract.Fallback
	switch {
	case carried && (mem == nil || !same(mem, seen)):
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
	d := contract.OperatorDecision{Condition: none.Condition, Memory: &m}
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
func fallbackOn(pod *contract.Mirror, now time.Time) (contract.Fallback, bool) {
	if pod == nil {
		return contract.Fallback{}, false
	}
	forRevision, ok := pod.Annotations[contract.AnnotationFallbackForRevision]
	if !ok {
		return contract.Fallback{}, false
	}
	r, err := strconv.Atoi(forRevision)
	if err != nil || r < 0 {
		r = 0
	}
	return contract.Fallback{
		ForRevision: r, ToRevision: pod.Revision,
		Reason:  contract.Reason(pod.Annotations[contract.AnnotationFallbackReason]),
		Message: pod.Annotations[contract.AnnotationFallbackMessage],
		PodName: pod.Name, UID: pod.UID, At: now,
	}, true
}

// same tells whether f is the fallback the operator already knows.
func same(f *contract.Fallback, g contract.Fallback) bool {
	return f.UID == g.UID && f.ForRevision == g.ForRevision && f.Reason == g.Reason && f.Message == g.Message
}

// describeSeed carries the fallback message and the termination message
// (003 §Proposal step 1, §User Stories 2 and 3).
func describeSeed(f contract.Fallback) string {
	msg := fmt.Sprintf("Revision %d failed to become ready and the node fell back to revision %d (%s): %s",
		f.ForRevision, f.ToRevision, f.Reason, f.Message)
	if f.Termination != "" {
		msg += fmt.Sprintf("\nTermination message of revision %d: %s", f.ForRevision, f.Termination)
	}
	return msg
}

// describeLibraryGo is library-go's text, which names the failed revision
// where it says "rolled back to".
func describeLibraryGo(f contract.Fallback) string {
	return fmt.Sprintf("a static pod %v was rolled back to revision %v due to %v", f.PodName, f.ForRevision, f.Message)
}
