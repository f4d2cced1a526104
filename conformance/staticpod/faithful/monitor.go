package faithful

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// The annotation keys and reasons, as 003 §Proposal step 1 and
// §Readiness spell them.
const (
	keyFor     = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	keyReason  = "startup-monitor.static-pods.openshift.io/fallback-reason"
	keyMessage = "startup-monitor.static-pods.openshift.io/fallback-message"

	neverStartedUp = "NeverStartedUp"
	crashLooping   = "CrashLooping"
	unhealthy      = "Unhealthy"
	notReady       = "NotReady"
	etcdUnhealthy  = "EtcdUnhealthy"
)

// readiness is 003 §Readiness on one look: the reason the operand is not
// ready and why, or "" when it is. etcdFirst reads a failing etcd as
// EtcdUnhealthy at /healthz already (the Test Plan) rather than as
// Unhealthy (the order of the steps).
func readiness(rev int, o contract.Observation, etcdFirst bool, hooks func([]string) string) (string, string) {
	etcd := o.Etcd == contract.Failed
	for _, u := range o.Unfinished {
		n := strings.TrimPrefix(u, "poststarthook/")
		etcd = etcd || n == "etcd" || strings.HasPrefix(n, "etcd-")
	}
	reason, why := "", ""
	switch {
	case o.Healthz != contract.OK && etcd && etcdFirst:
		reason, why = etcdUnhealthy, "/healthz is red and etcd with it"
	case o.Healthz != contract.OK:
		reason, why = unhealthy, "/healthz is red"
	case o.Readyz != contract.OK && etcd:
		reason, why = etcdUnhealthy, "/readyz is red: the etcd post-start hook has not finished; "+hooks(o.Unfinished)
	case o.Readyz != contract.OK:
		reason, why = notReady, "/readyz is red; "+hooks(o.Unfinished)
	case o.Mirror == nil:
		reason, why = notReady, "no mirror pod"
	case o.Mirror.Revision != rev:
		reason, why = notReady, fmt.Sprintf("the mirror pod shows revision %d", o.Mirror.Revision)
	case !o.Mirror.Ready:
		reason, why = notReady, "the mirror pod is not ready"
	default:
		return "", ""
	}
	// Steps 1 and 2 come first, but only while the operand is not up.
	switch {
	case o.StartAttempts == 0:
		return neverStartedUp, "termination.log shows no start-up attempt"
	case o.StartAttempts > 1:
		return crashLooping, fmt.Sprintf("termination.log shows %d start-up attempts; %s", o.StartAttempts, why)
	}
	return reason, why
}

// target is 003 §Proposal step 1: the last-known-good revision when the
// link points at another revision still on the node, else the newest
// revision below the monitor's, else none (bootstrapping).
func target(v contract.MonitorView) int {
	prev := 0
	for _, r := range v.Revisions {
		if r == v.LastKnownGood && r != v.Revision {
			return r
		}
		if r < v.Revision && r > prev {
			prev = r
		}
	}
	return prev
}

// underLock brackets ops with the installer lock (003 §Coordination).
func underLock(ops ...contract.Op) []contract.Op {
	return append(append([]contract.Op{{Kind: contract.TakeLock}}, ops...), contract.Op{Kind: contract.ReleaseLock})
}

// look is what both monitors share: the timer from the first sight of the
// operand manifest at the monitor's revision, nothing decided while it is
// another's or while another actor holds the lock.
func look(v contract.MonitorView, now time.Time) (contract.MonitorDecision, bool) {
	if v.Manifest != v.Revision {
		return contract.MonitorDecision{}, false // not ours: a return of ours is a new start
	}
	d := contract.MonitorDecision{Since: v.Since}
	if d.Since.IsZero() {
		d.Since = now
	}
	return d, !v.LockHeld
}

func fallbackOps(v contract.MonitorView, to int, reason, message string, removeSelf bool) []contract.Op {
	ops := []contract.Op{{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: to, Annotations: map[string]string{
		keyFor: strconv.Itoa(v.Revision), keyReason: reason, keyMessage: message,
	}}}
	if removeSelf {
		ops = append(ops, contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
	}
	return underLock(ops...)
}

func readyOps(v contract.MonitorView) []contract.Op {
	return underLock(contract.Op{Kind: contract.LinkLastKnownGood, Revision: v.Revision},
		contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
}

// Watchful decides at the instant, reads a failing etcd as EtcdUnhealthy,
// and keeps its manifest after a fallback. It remembers nothing.
func Watchful() contract.Monitor { return contract.MonitorFunc(watchful) }

func watchful(v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d, free := look(v, now)
	if !free {
		return d
	}
	reason, why := readiness(v.Revision, v.Operand, true, func(h []string) string { return "unfinished: " + strings.Join(h, ", ") })
	if reason == "" {
		d.Action, d.Ops = contract.Ready, readyOps(v)
		return d
	}
	d.Reason, d.Message = contract.Reason(reason), why
	if due := d.Since.Add(v.Timeout); now.Before(due) {
		d.Next = due
		return d
	}
	to := target(v)
	if to == 0 {
		return d // bootstrapping: nothing to go back to; keep watching
	}
	d.Action = contract.FallBack
	d.Ops = fallbackOps(v, to, reason, fmt.Sprintf("startup-monitor gave revision %d %s and it is still not ready: %s", v.Revision, v.Timeout, why), false)
	return d
}

// resync is how long Resyncing takes to react: its resync period.
const resync = 30 * time.Second

// readySettle is how long Resyncing waits after it first sees the operand
// ready before it links last-known-good.
const readySettle = 20 * time.Second

// Resyncing returns a monitor that looks on a resync: it falls back 30s
// after the timeout and acts on readiness 20s after it first sees it. It
// remembers, per mirror pod, when it first saw it ready (one per run).
func Resyncing() contract.Monitor {
	var mu sync.Mutex
	seen := map[string]time.Time{}
	return contract.MonitorFunc(func(v contract.MonitorView, now time.Time) contract.MonitorDecision {
		d, free := look(v, now)
		if !free {
			return d
		}
		reason, why := readiness(v.Revision, v.Operand, false, func(h []string) string {
			return "post-start hooks not finished:\n- " + strings.Join(h, "\n- ")
		})
		mu.Lock()
		defer mu.Unlock()
		if reason == "" {
			uid := v.Operand.Mirror.UID
			first, ok := seen[uid]
			if !ok {
				first, seen[uid] = now, now
			}
			if settled := first.Add(readySettle); now.Before(settled) {
				d.Next = settled
				return d
			}
			d.Action, d.Ops = contract.Ready, readyOps(v)
			return d
		}
		if v.Operand.Mirror != nil {
			delete(seen, v.Operand.Mirror.UID)
		}
		d.Reason, d.Message = contract.Reason(reason), why
		if due := d.Since.Add(v.Timeout + resync); now.Before(due) {
			d.Next = due
			return d
		}
		to := target(v)
		if to == 0 {
			return d
		}
		d.Action = contract.FallBack
		d.Ops = fallbackOps(v, to, reason, fmt.Sprintf("%s after %s: %s", reason, now.Sub(d.Since), why), true)
		return d
	})
}
