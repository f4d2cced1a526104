package faithful

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// degraded is the condition 003 §Retries names.
const degraded = "Degraded"

// noRetry are the reasons 003 §Retries never retries.
var noRetry = []string{crashLooping, neverStartedUp}

// ladder is a back-off: the wait before the retry after `retries` earlier
// retries of the revision.
type ladder func(retries int) time.Duration

// operator is what both operators share: what they remember of a
// fallback, when a fallback is over, whether and when to retry. wait is
// the back-off, lag how long after it is due a retry is asked (a resync),
// describe the condition's reason and message.
type operator struct {
	wait     ladder
	lag      time.Duration
	describe func(m contract.Fallback) (reason, message string)
}

// Look is contract.Operator's: mem is what it returned as Memory at its
// last look at the node (kept in its status, so a restart finds it).
func (o operator) Look(mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	fine := contract.OperatorDecision{Condition: contract.Condition{Type: degraded, Status: metav1.ConditionFalse, Reason: "NoFallback"}}
	var m contract.Fallback
	switch f, ok := shown(n.Mirror); {
	case ok && (mem == nil || mem.UID != f.UID):
		// A new fallback (003 §Proposal step 1): count the retries of its
		// revision so far.
		m = f
		if mem != nil && mem.ForRevision == f.ForRevision {
			m.Retries = mem.Retries
			if mem.Retried {
				m.Retries++
			}
		}
		m.At = now
	case mem == nil:
		return fine
	case !ok && n.Mirror != nil && n.Mirror.Ready && n.Mirror.Revision >= mem.ForRevision:
		return fine // the failed revision, or a newer one, runs ready: over
	default:
		m = *mem
	}
	if m.Termination == "" {
		m.Termination = n.Termination // 003 §User Stories 3
	}
	d := contract.OperatorDecision{Memory: &m, Condition: contract.Condition{Type: degraded, Status: metav1.ConditionTrue}}
	d.Condition.Reason, d.Condition.Message = o.describe(m)
	if m.Retried || m.ForRevision == 0 || m.ForRevision != n.Target || slices.Contains(noRetry, string(m.Reason)) {
		return d // nothing to retry: Degraded stays (003 §Test Plan: "stays degraded")
	}
	if due := m.At.Add(o.wait(m.Retries) + o.lag); now.Before(due) {
		d.Next = due
		return d
	}
	d.Retry, m.Retried = true, true
	return d
}

// shown reads the fallback annotations off the operand's mirror pod.
func shown(p *contract.Mirror) (contract.Fallback, bool) {
	if p == nil {
		return contract.Fallback{}, false
	}
	raw, ok := p.Annotations[keyFor]
	if !ok {
		return contract.Fallback{}, false
	}
	rev, err := strconv.Atoi(raw)
	if err != nil || rev < 0 {
		rev = 0
	}
	return contract.Fallback{ForRevision: rev, ToRevision: p.Revision, Reason: contract.Reason(p.Annotations[keyReason]),
		Message: p.Annotations[keyMessage], PodName: p.Name, UID: p.UID}, true
}

// Doubling retries 20m after a fallback, doubling up to 2h.
func Doubling() contract.Operator {
	return operator{
		wait: func(k int) time.Duration { return grow(20*time.Minute, 2, 2*time.Hour, k) },
		describe: func(m contract.Fallback) (string, string) {
			msg := fmt.Sprintf("node runs revision %d again: revision %d was rolled back (%s). %s", m.ToRevision, m.ForRevision, m.Reason, m.Message)
			if m.Termination != "" {
				msg += " Last words of revision " + strconv.Itoa(m.ForRevision) + ": " + m.Termination
			}
			return "RevisionRolledBack", msg
		},
	}
}

// Tripling retries 15m after a fallback, tripling up to 6h, at its next
// resync after the retry is due.
func Tripling() contract.Operator {
	return operator{
		wait: func(k int) time.Duration { return grow(15*time.Minute, 3, 6*time.Hour, k) },
		lag:  resync,
		describe: func(m contract.Fallback) (string, string) {
			msg := m.Message
			if m.Termination != "" {
				msg = fmt.Sprintf("terminated with %q; %s", m.Termination, msg)
			}
			return string(m.Reason), msg
		},
	}
}

// grow is first multiplied by factor k times, at most most.
func grow(first time.Duration, factor int, most time.Duration, k int) time.Duration {
	d := first
	for range k {
		if d >= most {
			break
		}
		d *= time.Duration(factor)
	}
	return min(d, most)
}
