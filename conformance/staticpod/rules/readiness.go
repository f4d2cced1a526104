package rules

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/sim/timeline"
)

// expectation is the fallback reason the operand's ground truth calls
// for: usually one reason, two where the seed reads both ways, none when
// the operand was ready.
type expectation struct {
	reasons []string
	why     string
	// hooks: the reason comes from /readyz, whose message must name the
	// unfinished post-start hooks (003 §Readiness step 4).
	hooks    bool
	evidence []timeline.Event
}

// expect runs the profile's readiness checks on the truth about revision
// rev just before it was fallen back from.
func (c Config) expect(t truth, rev int) expectation {
	if c.libraryGo() {
		return libraryGoExpect(t, rev)
	}
	return seedExpect(t, rev)
}

// seedExpect is 003 §Readiness in the seed's order: start attempts
// (steps 1, 2), /healthz (3), /readyz (4), the mirror pod (4 to 6).
func seedExpect(t truth, rev int) expectation {
	up := seedUp(t, rev)
	switch {
	case t.starts == 0:
		return expectation{reasons: []string{reasonNeverStartedUp}, why: "no start-up attempt in termination.log since the manifest was written"}
	case t.starts > 1 && len(up.reasons) > 0:
		// An operand that restarted but then came up has started up:
		// more than one attempt is red only while a later step is.
		return expectation{reasons: []string{reasonCrashLooping}, why: fmt.Sprintf("%d start-up attempts in termination.log", t.starts)}
	}
	return up
}

// seedUp are the steps after the start attempts. A kube-apiserver's
// /healthz covers etcd too, so with etcd failing /healthz is red: the
// seed's order then says Unhealthy, its Test Plan ("the etcd post-start
// hook never finishes. The reason is EtcdUnhealthy") says EtcdUnhealthy,
// and either is accepted. etcd counts as failing when /healthz/etcd
// answers with an error or /readyz lists an etcd check as failed, not
// when nothing listens.
func seedUp(t truth, rev int) expectation {
	etcd := t.etcd.answered && !t.etcd.ok || t.readyz.etcdFailing()
	switch {
	case !t.healthz.ok:
		e := expectation{reasons: []string{reasonUnhealthy}, why: "/healthz " + t.healthz.says(), evidence: probeEvents(t.healthz)}
		if etcd {
			e.reasons = append(e.reasons, reasonEtcdUnhealthy)
			e.why += " with etcd failing"
			e.evidence = append(e.evidence, probeEvents(t.etcd)...)
		}
		return e
	case !t.readyz.ok:
		e := expectation{reasons: []string{reasonNotReady}, why: "/readyz " + t.readyz.says(), hooks: true, evidence: probeEvents(t.readyz)}
		if etcd {
			e.reasons = []string{reasonEtcdUnhealthy}
		}
		return e
	}
	switch p := t.pod; {
	case !p.exists:
		return expectation{reasons: []string{reasonNotReady}, why: "there was no mirror pod"}
	case p.revision != rev:
		return expectation{reasons: []string{reasonNotReady}, why: otherRevision(p)}
	case !p.ready:
		return expectation{reasons: []string{reasonNotReady}, why: "the mirror pod was not ready"}
	}
	return operandReady
}

// libraryGoExpect is library-go's order (docs/upstream.md): no mirror pod of an
// old revision, /healthz/etcd, /healthz, /readyz (a refused connection is
// a NetworkError), then the pod Running and Ready.
func libraryGoExpect(t truth, rev int) expectation {
	switch {
	case !t.pod.exists:
		return expectation{reasons: []string{reasonPodNotRunning}, why: "there was no mirror pod"}
	case t.pod.revision != rev:
		return expectation{reasons: []string{reasonUnexpectedRevision}, why: otherRevision(t.pod)}
	}
	for _, s := range []struct {
		path   string
		p      probe
		reason string
	}{{"/healthz/etcd", t.etcd, reasonEtcdUnhealthy}, {"/healthz", t.healthz, reasonUnhealthy}, {"/readyz", t.readyz, reasonNotReady}} {
		switch {
		case !s.p.answered:
			return expectation{reasons: []string{reasonNetworkError}, why: s.path + " " + s.p.says(), evidence: probeEvents(s.p)}
		case !s.p.ok:
			return expectation{reasons: []string{s.reason}, why: s.path + " " + s.p.says(), hooks: s.reason == reasonNotReady, evidence: probeEvents(s.p)}
		}
	}
	switch {
	case t.pod.phase != "Running":
		return expectation{reasons: []string{reasonPodNodReady}, why: fmt.Sprintf("the mirror pod's phase was %q", t.pod.phase)}
	case !t.pod.ready:
		return expectation{reasons: []string{reasonPodNodReady}, why: "the mirror pod was not ready"}
	}
	return operandReady
}

// operandReady is the expectation of an operand that passed every check: no
// reason is right.
var operandReady = expectation{why: "its operand was ready: every readiness check passed"}

func otherRevision(p pod) string { return fmt.Sprintf("the mirror pod was at revision %d", p.revision) }

func probeEvents(p probe) []timeline.Event {
	if p.status == "" {
		return nil
	}
	return []timeline.Event{p.ev}
}

// missingHooks are the unfinished post-start hooks a message does not name.
func missingHooks(readyz probe, message string) []string {
	var out []string
	for _, h := range readyz.unfinishedHooks() {
		if !strings.Contains(message, h) {
			out = append(out, h)
		}
	}
	return out
}
