package staticpod

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// Step is one step of a readiness procedure. It returns an empty reason
// when the operand of revision passes it, else why not, for a person.
type Step func(revision int, o contract.Observation) (contract.Reason, string)

// Verdict runs the steps in order and returns the first failure; an empty
// reason means ready.
func Verdict(steps []Step, revision int, o contract.Observation) (contract.Reason, string) {
	for _, s := range steps {
		if r, msg := s(revision, o); r != "" {
			return r, msg
		}
	}
	return "", ""
}

// SeedSteps is 003 §Readiness in the seed's order.
func SeedSteps() []Step {
	return append([]Step{startedUp, notCrashLooping}, seedUpSteps()...)
}

// seedUpSteps are the steps that say the operand is up (003 §Readiness
// steps 3 to 6).
func seedUpSteps() []Step {
	return []Step{healthy, readyz, mirrorFound, mirrorAtRevision(contract.NotReady), mirrorReady(contract.NotReady)}
}

// startedUp is 003 §Readiness step 1.
func startedUp(_ int, o contract.Observation) (contract.Reason, string) {
	if o.StartAttempts == 0 {
		return contract.NeverStartedUp, "no start-up attempt in the termination log"
	}
	return "", ""
}

// notCrashLooping is 003 §Readiness step 2. More than one attempt is red
// only while the operand is not up: an operand that restarted once and
// then became ready has started up.
func notCrashLooping(revision int, o contract.Observation) (contract.Reason, string) {
	if r, _ := Verdict(seedUpSteps(), revision, o); o.StartAttempts > 1 && r != "" {
		return contract.CrashLooping, fmt.Sprintf("%d start-up attempts in the termination log", o.StartAttempts)
	}
	return "", ""
}

// healthy is 003 §Readiness step 3; not answering is red too (003
// §Proposal: "not answering on the expected port").
func healthy(_ int, o contract.Observation) (contract.Reason, string) {
	if o.Healthz != contract.OK {
		return contract.Unhealthy, "/healthz " + says(o.Healthz)
	}
	return "", ""
}

// readyz is 003 §Readiness step 4: EtcdUnhealthy when etcd is the cause,
// and in both cases the message lists the unfinished post-start hooks.
func readyz(_ int, o contract.Observation) (contract.Reason, string) {
	if o.Readyz == contract.OK {
		return "", ""
	}
	r, etcd := contract.NotReady, ""
	if o.Etcd != contract.OK {
		r, etcd = contract.EtcdUnhealthy, "; the etcd post-start hook has not finished"
	}
	return r, "/readyz " + says(o.Readyz) + etcd + "; unfinished post-start hooks: " + hooks(o.Unfinished)
}

// mirrorFound is the seed's second step 4 (get the mirror pod), which
// names no reason: it gives NotReady, as the two steps after it do.
func mirrorFound(_ int, o contract.Observation) (contract.Reason, string) {
	switch {
	case o.MirrorLookupFailed:
		return contract.NotReady, "the mirror pod could not be read from the local API server"
	case o.Mirror == nil:
		return contract.NotReady, "the mirror pod was not found"
	}
	return "", ""
}

// mirrorAtRevision is 003 §Readiness step 5.
func mirrorAtRevision(reason contract.Reason) Step {
	return func(revision int, o contract.Observation) (contract.Reason, string) {
		if o.Mirror != nil && o.Mirror.Revision != revision {
			return reason, fmt.Sprintf("the mirror pod has revision %d, want %d", o.Mirror.Revision, revision)
		}
		return "", ""
	}
}

// mirrorReady is 003 §Readiness step 6.
func mirrorReady(reason contract.Reason) Step {
	return func(revision int, o contract.Observation) (contract.Reason, string) {
		if o.Mirror != nil && !o.Mirror.Ready {
			return reason, fmt.Sprintf("the mirror pod of revision %d is not ready", revision)
		}
		return "", ""
	}
}

// LibraryGoSteps is library-go's order (docs/upstream.md): no old-revision
// pod, /healthz/etcd, /healthz, /readyz, the mirror pod at the revision,
// the pod Ready. It has no termination.log steps.
func LibraryGoSteps() []Step {
	return []Step{
		podAtRevision(false),
		endpoint("/healthz/etcd", func(o contract.Observation) contract.Probe { return o.Etcd }, contract.EtcdUnhealthy),
		endpoint("/healthz", func(o contract.Observation) contract.Probe { return o.Healthz }, contract.Unhealthy),
		endpoint("/readyz", func(o contract.Observation) contract.Probe { return o.Readyz }, contract.NotReady),
		podAtRevision(true),
		mirrorReady(PodNodReady),
	}
}

// podAtRevision is library-go's revision check of the mirror pod. Run
// first, not strict, it only rules out the old revision's pod: a failed
// lookup passes, since the new operand may not be serving yet and the
// later steps will say so.
func podAtRevision(strict bool) Step {
	return func(revision int, o contract.Observation) (contract.Reason, string) {
		switch {
		case o.MirrorLookupFailed && !strict:
			return "", ""
		case o.MirrorLookupFailed:
			return PodListError, "the mirror pod could not be read from the local API server"
		case o.Mirror == nil:
			return PodNotRunning, "waiting for the mirror pod to show up"
		}
		return mirrorAtRevision(UnexpectedRevision)(revision, o)
	}
}

// endpoint is one of library-go's HTTP checks: a refused connection is a
// NetworkError, an answer other than 200 is the check's reason.
func endpoint(path string, probe func(contract.Observation) contract.Probe, reason contract.Reason) Step {
	return func(_ int, o contract.Observation) (contract.Reason, string) {
		switch probe(o) {
		case contract.NoAnswer:
			return NetworkError, path + " " + says(contract.NoAnswer)
		case contract.Failed:
			return reason, path + " " + says(contract.Failed) + "; unfinished post-start hooks: " + hooks(o.Unfinished)
		}
		return "", ""
	}
}

// says is how a message names a probe's result.
func says(p contract.Probe) string {
	if p == contract.NoAnswer {
		return "did not answer"
	}
	return "is not ok"
}

func hooks(names []string) string {
	if len(names) == 0 {
		return "none reported"
	}
	return strings.Join(names, ", ")
}
