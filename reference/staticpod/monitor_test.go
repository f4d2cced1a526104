package staticpod

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// never stands for "no instant" in the tables.
const never = time.Duration(-1)

func instant(d time.Duration) time.Time {
	if d == never {
		return time.Time{}
	}
	return at(d)
}

// up is an operand of revision r that passes every step.
func up(r int) contract.Observation {
	return contract.Observation{StartAttempts: 1, Healthz: contract.OK, Etcd: contract.OK, Readyz: contract.OK, Mirror: &contract.Mirror{Name: "kas-node", UID: "u1", Revision: r, Ready: true}}
}

// watching is the monitor of revision 5 since 0 with the seed's 5m
// timeout, its manifest in place, last-known-good 4, with o as the operand and change applied.
func watching(o contract.Observation, change ...func(*contract.MonitorView)) contract.MonitorView {
	v := contract.MonitorView{Revision: 5, Timeout: 5 * time.Minute, Manifest: 5, Operand: o, Since: t0, LastKnownGood: 4, Revisions: []int{3, 4, 5}}
	for _, c := range change {
		c(&v)
	}
	return v
}

func fallbackTo(r int, reason contract.Reason, msg string) []contract.Op {
	return []contract.Op{
		{Kind: contract.TakeLock},
		{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: r, Annotations: map[string]string{
			contract.AnnotationFallbackForRevision: "5",
			contract.AnnotationFallbackReason:      string(reason),
			contract.AnnotationFallbackMessage:     msg,
		}},
		{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: 5},
		{Kind: contract.ReleaseLock},
	}
}

func TestMonitor(t *testing.T) {
	seed, lib := Seed().Monitor, LibraryGo().Monitor
	m := time.Minute
	o := func(change func(*contract.Observation)) contract.Observation { x := up(5); change(&x); return x }
	neverStarted := contract.Observation{} // nothing in the termination log, nothing answers
	crashLooping := contract.Observation{StartAttempts: 3, MirrorLookupFailed: true}
	hooksLeft := o(func(x *contract.Observation) {
		x.Readyz, x.Unfinished = contract.Failed, []string{"poststarthook/rbac/bootstrap-roles"}
	})
	etcdDown := o(func(x *contract.Observation) {
		x.Readyz, x.Etcd, x.Unfinished = contract.Failed, contract.Failed, []string{"etcd"}
	})
	readyzMsg := "Revision 5 did not become ready within 5m0s: /readyz is not ok; unfinished post-start hooks: poststarthook/rbac/bootstrap-roles"

	for _, c := range []struct {
		name    string
		p       MonitorParams
		v       contract.MonitorView
		now     time.Duration
		action  contract.Action
		reason  contract.Reason
		message string // a substring of Message
		ops     []contract.Op
		next    time.Duration
		since   time.Duration
	}{
		// 003 §Readiness, each step failing alone at the timeout.
		{name: "003 §Readiness step 1: no start-up attempt is NeverStartedUp", p: seed, v: watching(neverStarted), now: 5 * m,
			action: contract.FallBack, reason: contract.NeverStartedUp, message: "no start-up attempt",
			ops: fallbackTo(4, contract.NeverStartedUp, "Revision 5 did not become ready within 5m0s: no start-up attempt in the termination log"), next: never},
		{name: "003 §Readiness step 1: an old process answering does not count as a start-up", p: seed, v: watching(o(func(x *contract.Observation) { x.StartAttempts = 0 })), now: 5 * m,
			action: contract.FallBack, reason: contract.NeverStartedUp, next: never},
		{name: "003 §Readiness step 2: several attempts and not up is CrashLooping", p: seed, v: watching(crashLooping), now: 5 * m,
			action: contract.FallBack, reason: contract.CrashLooping, message: "3 start-up attempts", next: never},
		{name: "003 §Readiness step 2: a restart followed by readiness is a start-up", p: seed, v: watching(o(func(x *contract.Observation) { x.StartAttempts = 2 })), now: m,
			action: contract.Ready, next: never},
		{name: "003 §Readiness step 3: /healthz red is Unhealthy, before a red /readyz", p: seed, v: watching(o(func(x *contract.Observation) { x.Healthz, x.Readyz = contract.Failed, contract.Failed })), now: 5 * m,
			action: contract.FallBack, reason: contract.Unhealthy, message: "/healthz is not ok", next: never},
		{name: "003 §Proposal: not answering on the port is Unhealthy", p: seed, v: watching(o(func(x *contract.Observation) { x.Healthz = contract.NoAnswer })), now: 5 * m,
			action: contract.FallBack, reason: contract.Unhealthy, message: "/healthz did not answer", next: never},
		{name: "003 §Readiness step 4: /readyz red is NotReady, the message lists the unfinished hooks", p: seed, v: watching(hooksLeft), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, ops: fallbackTo(4, contract.NotReady, readyzMsg), next: never},
		{name: "003 §Readiness step 4: etcd hook never finished is EtcdUnhealthy, with the hooks", p: seed, v: watching(etcdDown), now: 5 * m,
			action: contract.FallBack, reason: contract.EtcdUnhealthy, message: "the etcd post-start hook has not finished; unfinished post-start hooks: etcd", next: never},
		{name: "003 §Readiness second step 4: no mirror pod is NotReady", p: seed, v: watching(o(func(x *contract.Observation) { x.Mirror = nil })), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, message: "mirror pod was not found", next: never},
		{name: "003 §Readiness second step 4: the local API server not answering is NotReady", p: seed, v: watching(o(func(x *contract.Observation) { x.Mirror, x.MirrorLookupFailed = nil, true })), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, message: "could not be read", next: never},
		{name: "003 §Readiness step 5: the mirror pod of another revision is NotReady", p: seed, v: watching(o(func(x *contract.Observation) { x.Mirror.Revision = 4 })), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, message: "has revision 4, want 5", next: never},
		{name: "003 §Readiness step 6: a mirror pod not ready is NotReady", p: seed, v: watching(o(func(x *contract.Observation) { x.Mirror.Ready = false })), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, message: "revision 5 is not ready", next: never},

		// The timeout.
		{name: "003 §Readiness timeout: one nanosecond before 5m the monitor waits for 5m", p: seed, v: watching(hooksLeft), now: 5*m - 1,
			action: contract.Wait, reason: contract.NotReady, next: 5 * m},
		{name: "003 §Readiness timeout: at 5m it falls back", p: seed, v: watching(hooksLeft), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, next: never},
		{name: "003 §Readiness timeout: the timeout is the operator's, given in the view", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.Timeout = m }), now: m,
			action: contract.FallBack, reason: contract.NotReady, message: "", next: never},
		{name: "003 §Readiness timeout: it runs from the first sight of the manifest at the monitor's revision", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.Since = time.Time{} }), now: 2 * m,
			action: contract.Wait, reason: contract.NotReady, next: 7 * m, since: 2 * m},

		// 003 §Proposal step 2.
		{name: "003 §Proposal step 2: ready links last-known-good, then removes the monitor's manifest", p: seed, v: watching(up(5)), now: m,
			action: contract.Ready, ops: []contract.Op{{Kind: contract.TakeLock}, {Kind: contract.LinkLastKnownGood, Revision: 5}, {Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: 5}, {Kind: contract.ReleaseLock}}, next: never},
		{name: "003 §Proposal step 2: ready after the timeout, when there was nothing to fall back to", p: seed, v: watching(up(5), func(v *contract.MonitorView) { v.LastKnownGood, v.Revisions = 0, []int{5} }), now: time.Hour,
			action: contract.Ready, next: never},

		// 003 §Proposal step 1: which revision.
		{name: "003 §Upgrade / Downgrade Strategy: no last-known-good link falls back to the previous revision", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.LastKnownGood, v.Revisions = 0, []int{2, 3, 5, 6} }), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, ops: fallbackTo(3, contract.NotReady, readyzMsg), next: never},
		{name: "003 §Proposal step 1: a link to the failing revision itself counts as no link", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.LastKnownGood = 5 }), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, ops: fallbackTo(4, contract.NotReady, readyzMsg), next: never},
		{name: "003 §Proposal step 1: a link to a pruned revision counts as no link", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.LastKnownGood, v.Revisions = 2, []int{3, 4, 5} }), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, ops: fallbackTo(4, contract.NotReady, readyzMsg), next: never},
		{name: "003 §Proposal step 1: last-known-good wins over a newer previous revision", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.LastKnownGood = 3 }), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, ops: fallbackTo(3, contract.NotReady, readyzMsg), next: never},
		{name: "003 §Proposal step 1: bootstrap, no previous revision: nothing written, the monitor keeps watching", p: seed, v: watching(hooksLeft, func(v *contract.MonitorView) { v.LastKnownGood, v.Revisions = 0, []int{5} }), now: time.Hour,
			action: contract.Wait, reason: contract.NotReady, next: never},

		// 003 §Proposal ¶"As long as", §Upgrade / Downgrade Strategy, §Coordination.
		{name: "003 §Proposal: an operand manifest of another revision: wait, even past the timeout", p: seed, v: watching(neverStarted, func(v *contract.MonitorView) { v.Manifest = 4 }), now: time.Hour,
			action: contract.Wait, next: never, since: never},
		{name: "003 §Upgrade / Downgrade Strategy: no operand manifest (or no revision on it): wait", p: seed, v: watching(neverStarted, func(v *contract.MonitorView) { v.Manifest, v.Since = 0, time.Time{} }), now: time.Hour,
			action: contract.Wait, next: never, since: never},
		{name: "003 §Coordination: nothing while the installer holds the lock, the timer kept", p: seed, v: watching(neverStarted, func(v *contract.MonitorView) { v.LockHeld = true }), now: time.Hour,
			action: contract.Wait, next: never},
		{name: "003 §Readiness, §Coordination: the timer starts at the first sight of the manifest, under the installer's lock too", p: seed, v: watching(neverStarted, func(v *contract.MonitorView) { v.LockHeld, v.Since = true, time.Time{} }), now: 2 * m,
			action: contract.Wait, next: never, since: 2 * m},
		{name: "003 §Coordination: past the timeout under the lock, the fallback waits for the unlock", p: seed, v: watching(neverStarted, func(v *contract.MonitorView) { v.LockHeld = true }), now: 6 * m,
			action: contract.Wait, next: never},
		{name: "003 §Coordination: a monitor that ignores the lock writes without it", p: func() MonitorParams { p := Seed().Monitor; p.HonourLock = false; return p }(), v: watching(neverStarted, func(v *contract.MonitorView) { v.LockHeld = true }), now: 5 * m,
			action: contract.FallBack, reason: contract.NeverStartedUp, ops: fallbackTo(4, contract.NeverStartedUp, "Revision 5 did not become ready within 5m0s: no start-up attempt in the termination log")[1:3], next: never},

		// docs/upstream.md: library-go's order and reasons.
		{name: "upstream library-go: no NeverStartedUp, a silent operand is a NetworkError", p: lib, v: watching(contract.Observation{MirrorLookupFailed: true}), now: 5 * m,
			action: contract.FallBack, reason: NetworkError, message: "/healthz/etcd did not answer", next: never},
		{name: "upstream library-go: no CrashLooping", p: lib, v: watching(crashLooping), now: 5 * m,
			action: contract.FallBack, reason: NetworkError, next: never},
		{name: "upstream library-go: the old revision's pod is found first", p: lib, v: watching(o(func(x *contract.Observation) { x.Mirror.Revision, x.Etcd = 4, contract.Failed })), now: 5 * m,
			action: contract.FallBack, reason: UnexpectedRevision, next: never},
		{name: "upstream library-go: no mirror pod while the API answers is PodNotRunning", p: lib, v: watching(o(func(x *contract.Observation) { x.Mirror = nil })), now: 5 * m,
			action: contract.FallBack, reason: PodNotRunning, next: never},
		{name: "upstream library-go: /healthz/etcd comes before /healthz", p: lib, v: watching(o(func(x *contract.Observation) { x.Etcd, x.Healthz = contract.Failed, contract.Failed })), now: 5 * m,
			action: contract.FallBack, reason: contract.EtcdUnhealthy, next: never},
		{name: "003 §Readiness: the same operand is Unhealthy in the seed's order", p: seed, v: watching(o(func(x *contract.Observation) { x.Etcd, x.Healthz = contract.Failed, contract.Failed })), now: 5 * m,
			action: contract.FallBack, reason: contract.Unhealthy, next: never},
		{name: "upstream library-go: /readyz red is NotReady", p: lib, v: watching(hooksLeft), now: 5 * m,
			action: contract.FallBack, reason: contract.NotReady, next: never},
		{name: "upstream library-go: a lookup failing after /readyz passed is PodListError", p: lib, v: watching(o(func(x *contract.Observation) { x.Mirror, x.MirrorLookupFailed = nil, true })), now: 5 * m,
			action: contract.FallBack, reason: PodListError, next: never},
		{name: "upstream library-go: a pod not ready is PodNodReady, spelled as shipped", p: lib, v: watching(o(func(x *contract.Observation) { x.Mirror.Ready = false })), now: 5 * m,
			action: contract.FallBack, reason: PodNodReady, next: never},
		{name: "upstream library-go: ready", p: lib, v: watching(up(5)), now: m,
			action: contract.Ready, next: never},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Monitor(c.p, c.v, at(c.now))
			if d.Action != c.action || d.Reason != c.reason {
				t.Fatalf("action %v reason %q (%s), want %v %q", d.Action, d.Reason, d.Message, c.action, c.reason)
			}
			if !strings.Contains(d.Message, c.message) {
				t.Errorf("message %q, want it to contain %q", d.Message, c.message)
			}
			if c.ops != nil && !reflect.DeepEqual(d.Ops, c.ops) {
				t.Errorf("ops\n%+v\nwant\n%+v", d.Ops, c.ops)
			}
			if c.action == contract.Wait && d.Ops != nil {
				t.Errorf("waiting with ops %+v", d.Ops)
			}
			if !d.Next.Equal(instant(c.next)) {
				t.Errorf("next %v, want %v", d.Next, instant(c.next))
			}
			if want := instant(c.since); !d.Since.Equal(want) {
				t.Errorf("since %v, want %v", d.Since, want)
			}
		})
	}
}
