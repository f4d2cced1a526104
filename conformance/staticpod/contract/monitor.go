package contract

import "time"

// Reason is a machine-readable fallback reason, the value of the
// fallback-reason annotation and of the Degraded condition's reason.
type Reason string

// The reasons of 003 §Readiness.
const (
	NeverStartedUp Reason = "NeverStartedUp"
	CrashLooping   Reason = "CrashLooping"
	Unhealthy      Reason = "Unhealthy"
	NotReady       Reason = "NotReady"
	EtcdUnhealthy  Reason = "EtcdUnhealthy"
)

// The annotations of 003 §Proposal step 1, put on the manifest the monitor
// falls back to; kubelet copies them onto the mirror pod.
const (
	AnnotationFallbackForRevision = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	AnnotationFallbackReason      = "startup-monitor.static-pods.openshift.io/fallback-reason"
	AnnotationFallbackMessage     = "startup-monitor.static-pods.openshift.io/fallback-message"
)

// Probe is the result of one HTTP check of the operand.
type Probe int

// Probe results. The zero value is an operand that does not answer, so a
// zero Observation is an operand that never started.
const (
	NoAnswer Probe = iota // connection refused or timed out
	Failed                // answered with a status other than 200
	OK
)

// Mirror is the operand's mirror pod as the local API server returns it.
type Mirror struct {
	Name        string            // the mirror pod's name
	UID         string            // a new manifest gives a new mirror pod, with a new UID
	Revision    int               // its revision annotation
	Ready       bool              // status.ready
	Annotations map[string]string // its annotations (a fallback's among them)
}

// Observation is what the world saw of the operand at one look. The
// fields are independent: each comes from its own probe.
type Observation struct {
	// StartAttempts counts the start-up attempts of this revision's
	// operand in its termination.log.
	StartAttempts int
	Healthz       Probe // /healthz
	Etcd          Probe // /healthz/etcd: the etcd post-start hook of 003 §Readiness step 4
	Readyz        Probe // /readyz
	// Unfinished are the post-start hooks /readyz?verbose lists as not
	// finished, for the message.
	Unfinished []string
	// Mirror is nil when the local API server returned no mirror pod.
	Mirror *Mirror
	// MirrorLookupFailed: the local API server did not answer the lookup.
	MirrorLookupFailed bool
}

// MonitorView is what the startup-monitor of one revision sees at a look.
type MonitorView struct {
	Revision int // the monitor's own revision
	// Timeout is the readiness timeout the operator gave the monitor (003
	// §Readiness: 5m, "to be specified in the operator"; the run's
	// --staticpod-timeout, carried by the monitor's manifest).
	Timeout time.Duration
	// Manifest is the revision annotation of the operand manifest in the
	// manifest dir; 0 when there is none or it has no annotation.
	Manifest int
	Operand  Observation // what the world saw of the operand
	LockHeld bool        // another actor holds the installer lock
	// Since is the instant the monitor first saw the operand manifest at
	// its revision, as the last decision returned it; zero at the start
	// (and after a restart: the world keeps it only while the process
	// runs).
	Since         time.Time
	LastKnownGood int   // the revision the last-known-good link points at; 0: no link
	Revisions     []int // the revisions present in the resource dir
}

// Action is what the monitor decided.
type Action int

// Actions of the startup-monitor.
const (
	Wait     Action = iota // nothing to write; look again at Next or on a change
	FallBack               // 003 §Proposal step 1
	Ready                  // 003 §Proposal step 2
)

// MonitorDecision is the monitor's answer to one look.
type MonitorDecision struct {
	Action Action // what it decided
	Ops    []Op   // the file operations that carry it out, in order
	// Reason and Message are the first failing step (empty when ready or
	// not evaluated): what a fallback is for, or why the monitor waits.
	Reason  Reason
	Message string // with Reason: see there
	// Since is to be passed back in the next view.
	Since time.Time
	// Next is when the decision changes if nothing observed changes; zero
	// when only a change (a probe, the lock, the manifest) can change it.
	Next time.Time
}
