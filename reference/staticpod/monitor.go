package staticpod

import (
	"fmt"
	"strconv"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// MonitorParams are the startup-monitor's parameters.
type MonitorParams struct {
	// Steps is the readiness procedure, in order.
	Steps []Step
	// HonourLock: wait while the installer holds the lock, and hold it
	// while writing (003 §Coordination).
	HonourLock bool
}

// Monitor decides for the startup-monitor of one revision.
func Monitor(p MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := contract.MonitorDecision{Since: v.Since}
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
		d.Action = contract.Ready
		d.Ops = locked(p.HonourLock,
			contract.Op{Kind: contract.LinkLastKnownGood, Revision: v.Revision},
			contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
		return d
	}
	if due := d.Since.Add(v.Timeout); now.Before(due) {
		d.Next = due
		return d
	}
	to := fallbackRevision(v)
	if to == 0 {
		// Bootstrap: nothing to fall back to. Keep watching, so that the
		// first revision to become ready is linked as last-known-good.
		return d
	}
	d.Action = contract.FallBack
	d.Ops = locked(p.HonourLock,
		contract.Op{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: to, Annotations: map[string]string{
			contract.AnnotationFallbackForRevision: strconv.Itoa(v.Revision),
			contract.AnnotationFallbackReason:      string(d.Reason),
			contract.AnnotationFallbackMessage:     fmt.Sprintf("Revision %d did not become ready within %v: %s", v.Revision, v.Timeout, d.Message),
		}},
		// Once the operand manifest is another revision's, this monitor
		// would wait forever; a retry installs a new one.
		contract.Op{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision})
	return d
}

// fallbackRevision is 003 §Proposal step 1: the last-known-good revision,
// else the newest revision before the monitor's, else none. A link to the
// failing revision itself, or to a revision no longer present, is no
// fallback and counts as no link.
func fallbackRevision(v contract.MonitorView) int {
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
