package staticpod

import "github.com/opcert/opcert/conformance/staticpod/contract"

// InstallerParams are the installer's parameters.
type InstallerParams struct {
	// HonourLock: wait for the lock and hold it while writing (003
	// §Coordination).
	HonourLock bool
}

// Install returns the file operations that install revision, in order, or
// nil when the installer must wait for the lock (it looks again when the
// lock is released; it has no timer of its own).
//
// The startup-monitor's manifest is written before the operand's: an
// installer that dies in between leaves a monitor waiting on an older
// operand manifest (003 §Proposal), never a new operand nobody watches.
func Install(p InstallerParams, revision int, lockHeld bool) []contract.Op {
	if p.HonourLock && lockHeld {
		return nil
	}
	return locked(p.HonourLock,
		contract.Op{Kind: contract.WriteResources, Revision: revision},
		contract.Op{Kind: contract.WriteManifest, Pod: contract.StartupMonitor, Revision: revision},
		contract.Op{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: revision})
}
