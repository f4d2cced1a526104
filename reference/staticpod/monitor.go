package staticpod

import (
	"fmt"
	"strconv"
	"time"
)

// MonitorParams are the startup-monitor's parameters.
type MonitorParams struct {
	// Timeout is how long the operand has to become ready before the
	// monitor falls back (003 §Readiness: 5m, set by the operator).
	Timeout time.Duration
	// Steps is the readiness procedure, in order.
	Steps []Step
	// HonourLock: wait while the installer holds the lock, and hold it
	// while writing (003 §Coordination).
	HonourLock bool
}

// MonitorView is what the startup-monitor of one revision sees at a look.
type MonitorView struct {
	Revision int // the monitor's own revision
	// Manifest is the revision annotation of the operand manifest in the
	// manifest dir; 0 when there is none or it has no annotation.
	Manifest int
	Operand  Observation
	LockHeld bool // the installer holds the lock
	// Since is the instant the monitor first saw the operand manifest at
	// its revision, as the last decision returned it; zero at the start.
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
	Action Action
	Ops    []Op
	// Reason and Message are the first failing step (empty when ready or
	// not evaluated): what a fallback is for, or why the monitor waits.
	Reason  Reason
	Message string
	// Since is to be passed back in the next view.
	Since time.Time
	// Next is when the decision changes if nothing observed changes; zero
	// when only a change (a probe, the lock, the manifest) can change it.
	Next time.Time
}

// Monitor decides for the startup-monitor of one revision.
func Monitor(p MonitorParams, v MonitorView, now time.Time) MonitorDecision {
	d := MonitorDecision{Since: v.Since}
	if v.Manifest != v.Revision {
		// 003 §Proposal, §Upgrade / Downgrade Strategy: another revision's
		// operand is not ours to judge. If ours comes back, it is a new
		// start and gets a full timeout.
		d.Since = time.Time{}
		return d
	}
	if d.Since.IsZero() {
		// 003 §Readiness: the operand has N minutes from its start, which
		// is when its manifest is there; the timer starts at the first
		// sight of it, under the installer's lock too.
		d.Since = now
	}
	if p.HonourLock && v.LockHeld {
		// 003 §Coordination: the installer may be writing. Decide nothing
		// until it lets go (its unlock wakes the monitor); the timer runs.
		return d
	}
	d.Reason, d.Message = Verdict(p.Steps, v.Revision, v.Operand)
	if d.Reason == "" {
		d.Action = Ready
		d.Ops = locked(p.HonourLock,
			Op{Kind: LinkLastKnownGood, Revision: v.Revision},
			Op{Kind: RemoveManifest, Pod: StartupMonitor, Revision: v.Revision})
		return d
	}
	if due := d.Since.Add(p.Timeout); now.Before(due) {
		d.Next = due
		return d
	}
	to := fallbackRevision(v)
	if to == 0 {
		// Bootstrap: nothing to fall back to. Keep watching, so that the
		// first revision to become ready is linked as last-known-good.
		return d
	}
	d.Action = FallBack
	d.Ops = locked(p.HonourLock,
		Op{Kind: WriteManifest, Pod: Operand, Revision: to, Annotations: map[string]string{
			AnnotationFallbackForRevision: strconv.Itoa(v.Revision),
			AnnotationFallbackReason:      string(d.Reason),
			AnnotationFallbackMessage:     fmt.Sprintf("Revision %d did not become ready within %v: %s", v.Revision, p.Timeout, d.Message),
		}},
		// Once the operand manifest is another revision's, this monitor
		// would wait forever; a retry installs a new one.
		Op{Kind: RemoveManifest, Pod: StartupMonitor, Revision: v.Revision})
	return d
}

// fallbackRevision is 003 §Proposal step 1: the last-known-good revision,
// else the newest revision before the monitor's, else none. A link to the
// failing revision itself, or to a revision no longer present, is no
// fallback and counts as no link.
func fallbackRevision(v MonitorView) int {
	prev, linked := 0, false
	for _, r := range v.Revisions {
		linked = linked || r == v.LastKnownGood
		if r < v.Revision && r > prev {
			prev = r
		}
	}
	if linked && v.LastKnownGood != v.Revision {
		return v.LastKnownGood
	}
	return prev
}
