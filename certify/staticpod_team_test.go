package certify_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// Seed 003's four roles as a team would write its own cores for library
// mode: from the seed's text and the role contract alone, one type per
// role, each with the knob its broken twin in staticpod_test.go turns.

// Fallback annotation keys, 003 §Proposal step 1.
const (
	teamKeyFor     = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	teamKeyReason  = "startup-monitor.static-pods.openshift.io/fallback-reason"
	teamKeyMessage = "startup-monitor.static-pods.openshift.io/fallback-message"
)

// teamMonitor is one startup-monitor process. It keeps its own clock of
// the operand (the instant it first saw its revision's manifest), which a
// restart loses, as a real process's memory.
type teamMonitor struct {
	// ownTimeout, when set, is used instead of the operator's (the view's).
	ownTimeout time.Duration
	seen       time.Time
}

func (m *teamMonitor) Look(v contract.MonitorView, now time.Time) contract.MonitorDecision {
	if v.Manifest != v.Revision {
		// "As long as the startup-monitor notices an operand pod-manifest
		// of a different revision ... it will do nothing and just wait."
		m.seen = time.Time{}
		return contract.MonitorDecision{}
	}
	if m.seen.IsZero() {
		m.seen = now
	}
	d := contract.MonitorDecision{Since: m.seen}
	if v.LockHeld {
		return d // §Coordination: wait for the installer's lock
	}
	reason, why := teamReadiness(v.Revision, v.Operand)
	if reason == "" {
		// Step 2: link last-known-good, then remove our own manifest.
		d.Action = contract.Ready
		d.Ops = teamLocked(contract.Op{Kind: contract.LinkLastKnownGood, Revision: v.Revision},
			contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
		return d
	}
	d.Reason, d.Message = reason, why
	timeout := v.Timeout
	if m.ownTimeout > 0 {
		timeout = m.ownTimeout
	}
	if deadline := m.seen.Add(timeout); now.Before(deadline) {
		d.Next = deadline
		return d
	}
	to := teamFallbackTo(v)
	if to == 0 {
		return d // bootstrapping: nothing to go back to
	}
	d.Action = contract.FallBack
	d.Ops = teamLocked(
		contract.Op{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: to, Annotations: map[string]string{
			teamKeyFor:     strconv.Itoa(v.Revision),
			teamKeyReason:  string(reason),
			teamKeyMessage: fmt.Sprintf("team monitor: revision %d not ready after %s (%s); going back to revision %d", v.Revision, timeout, why, to),
		}},
		contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
	return d
}

// teamReadiness walks 003 §Readiness: the first red step's reason, or ""
// when the operand is ready. Several start-up attempts are a crash loop
// only while the operand is not up.
func teamReadiness(rev int, o contract.Observation) (contract.Reason, string) {
	if o.StartAttempts == 0 {
		return contract.NeverStartedUp, "termination.log has no start-up attempt"
	}
	var reason contract.Reason
	var why string
	switch {
	case o.Healthz != contract.OK:
		reason, why = contract.Unhealthy, "healthz red"
	case o.Readyz != contract.OK && o.Etcd != contract.OK:
		reason, why = contract.EtcdUnhealthy, "readyz red, etcd hook pending, unfinished hooks ["+strings.Join(o.Unfinished, " ")+"]"
	case o.Readyz != contract.OK:
		reason, why = contract.NotReady, "readyz red, unfinished hooks ["+strings.Join(o.Unfinished, " ")+"]"
	case o.MirrorLookupFailed || o.Mirror == nil:
		reason, why = contract.NotReady, "mirror pod unknown"
	case o.Mirror.Revision != rev:
		reason, why = contract.NotReady, "mirror pod at revision "+strconv.Itoa(o.Mirror.Revision)
	case !o.Mirror.Ready:
		reason, why = contract.NotReady, "mirror pod not ready"
	default:
		return "", ""
	}
	if o.StartAttempts > 1 {
		return contract.CrashLooping, strconv.Itoa(o.StartAttempts) + " start-up attempts; " + why
	}
	return reason, why
}

// teamFallbackTo is 003 §Proposal step 1's target: the last-known-good
// revision if the link points at another revision still on the node, else
// the previous revision, else none.
func teamFallbackTo(v contract.MonitorView) int {
	if v.LastKnownGood != v.Revision && slices.Contains(v.Revisions, v.LastKnownGood) {
		return v.LastKnownGood
	}
	best := 0
	for _, r := range v.Revisions {
		if r < v.Revision {
			best = max(best, r)
		}
	}
	return best
}

func teamLocked(ops ...contract.Op) []contract.Op {
	out := []contract.Op{{Kind: contract.TakeLock}}
	out = append(out, ops...)
	return append(out, contract.Op{Kind: contract.ReleaseLock})
}

// teamInstaller installs a revision: its files, the startup-monitor's
// manifest, then the operand's, under the lock (003 §Coordination).
type teamInstaller struct {
	// careless: neither waits for nor takes the lock.
	careless bool
}

func (i teamInstaller) Install(revision int, lockHeld bool) []contract.Op {
	ops := []contract.Op{
		{Kind: contract.WriteResources, Revision: revision},
		{Kind: contract.WriteManifest, Pod: contract.StartupMonitor, Revision: revision},
		{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: revision},
	}
	switch {
	case i.careless:
		return ops
	case lockHeld:
		return nil
	}
	return teamLocked(ops...)
}

// teamPruner keeps the newest revisions and, as 003 §Pruner extends it,
// the one last-known-good points at.
type teamPruner struct {
	// linkBlind: does not know the link.
	linkBlind bool
}

func (p teamPruner) Prune(revisions []int, keep, lastKnownGood int) []int {
	sorted := slices.Clone(revisions)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var drop []int
	for i, r := range sorted {
		newer := len(sorted) - 1 - i
		if newer < keep || !p.linkBlind && r == lastKnownGood {
			continue
		}
		drop = append(drop, r)
	}
	return drop
}

// teamStanding is the fallback that stands at this look: a new one the
// mirror pod shows (another pod than the one remembered), else the one
// remembered until the failed revision or a later one runs ready without
// fallback annotations; false when none stands.
func teamStanding(mem *contract.Fallback, pod *contract.Mirror, now time.Time) (contract.Fallback, bool) {
	var forRevision string
	if pod != nil {
		forRevision = pod.Annotations[teamKeyFor]
	}
	if forRevision != "" && (mem == nil || mem.UID != pod.UID) {
		failed, _ := strconv.Atoi(forRevision)
		return contract.Fallback{ForRevision: failed, ToRevision: pod.Revision, PodName: pod.Name, UID: pod.UID, At: now,
			Reason: contract.Reason(pod.Annotations[teamKeyReason]), Message: pod.Annotations[teamKeyMessage],
			Retries: teamRetriesSoFar(mem, failed)}, true
	}
	if mem == nil {
		return contract.Fallback{}, false
	}
	over := forRevision == "" && pod != nil && pod.Ready && pod.Revision >= mem.ForRevision
	return *mem, !over
}

// teamRetriesSoFar counts the retries of revision asked before a new
// fallback from it.
func teamRetriesSoFar(mem *contract.Fallback, revision int) int {
	switch {
	case mem == nil || mem.ForRevision != revision:
		return 0
	case mem.Retried:
		return mem.Retries + 1
	}
	return mem.Retries
}

// teamOperator retries a failed revision 12m after its fallback, then
// 24m, 48m, ... up to 6h (003 §Retries), never after CrashLooping or
// NeverStartedUp, and reports Degraded while a fallback is not over.
type teamOperator struct {
	firstRetry time.Duration
}

func (o teamOperator) Look(mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	f, standing := teamStanding(mem, n.Mirror, now)
	if !standing {
		return contract.OperatorDecision{Condition: contract.Condition{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "NoFallback"}}
	}
	if f.Termination == "" {
		f.Termination = n.Termination
	}
	msg := fmt.Sprintf("node fell back from revision %d to %d: %s", f.ForRevision, f.ToRevision, f.Message)
	if f.Termination != "" {
		msg += "; revision " + strconv.Itoa(f.ForRevision) + " terminated with: " + f.Termination
	}
	d := contract.OperatorDecision{Memory: &f, Condition: contract.Condition{Type: "Degraded", Status: metav1.ConditionTrue, Reason: "FallbackInPlace", Message: msg}}
	never := f.Reason == contract.CrashLooping || f.Reason == contract.NeverStartedUp
	if f.Retried || never || f.ForRevision == 0 || f.ForRevision != n.Target {
		return d
	}
	wait := o.firstRetry
	for range f.Retries {
		wait = min(2*wait, 6*time.Hour)
	}
	if due := f.At.Add(wait); now.Before(due) {
		d.Next = due
		return d
	}
	d.Retry, f.Retried = true, true
	return d
}
