package contract

import "time"

// Monitor is the startup-monitor of one revision on one node. The world
// makes one per monitor process (a new revision's monitor, a restart) and
// asks it at every look: when a manifest, the lock, termination.log, the
// mirror pod or an endpoint's answer changes, and at its decision's Next.
type Monitor interface {
	// Look decides what to do now, given what the world sees.
	Look(v MonitorView, now time.Time) MonitorDecision
}

// Installer is the installer of one node: asked to install revision, it
// returns the file operations, in order, or nil while it waits for the
// lock (lockHeld: another actor holds it; it is asked again at the
// unlock).
type Installer interface {
	// Install returns the operations that install revision.
	Install(revision int, lockHeld bool) []Op
}

// Operator is the static pod operator, asked about each node at each
// look: when a mirror pod changes, when the target moves, and at its
// decision's Next. mem is the Memory it returned at its last look at the
// node (kept in its status, so a restarted operator gets it back).
type Operator interface {
	// Look decides about one node, given its memory of it.
	Look(mem *Fallback, n Node, now time.Time) OperatorDecision
}

// Pruner is the pruner of one node: given the revisions in the resource
// dir, how many to keep and the revision last-known-good points at (0: no
// link), it returns the revisions whose directories to delete.
type Pruner interface {
	// Prune returns the revisions whose directories to delete.
	Prune(revisions []int, keep, lastKnownGood int) []int
}

// MonitorFunc is a Monitor that is a function.
type MonitorFunc func(v MonitorView, now time.Time) MonitorDecision

// Look calls f.
func (f MonitorFunc) Look(v MonitorView, now time.Time) MonitorDecision { return f(v, now) }

// InstallerFunc is an Installer that is a function.
type InstallerFunc func(revision int, lockHeld bool) []Op

// Install calls f.
func (f InstallerFunc) Install(revision int, lockHeld bool) []Op { return f(revision, lockHeld) }

// OperatorFunc is an Operator that is a function.
type OperatorFunc func(mem *Fallback, n Node, now time.Time) OperatorDecision

// Look calls f.
func (f OperatorFunc) Look(mem *Fallback, n Node, now time.Time) OperatorDecision {
	return f(mem, n, now)
}

// PrunerFunc is a Pruner that is a function.
type PrunerFunc func(revisions []int, keep, lastKnownGood int) []int

// Prune calls f.
func (f PrunerFunc) Prune(revisions []int, keep, lastKnownGood int) []int {
	return f(revisions, keep, lastKnownGood)
}
