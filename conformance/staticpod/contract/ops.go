package contract

import "fmt"

// Pod names one of the two static pods a revision brings.
type Pod string

// The pods of a revision (003 §Proposal).
const (
	Operand        Pod = "operand"
	StartupMonitor Pod = "startup-monitor"
)

// OpKind is one kind of node file operation.
type OpKind int

// The file operations the installer and the startup-monitor ask for.
const (
	TakeLock          OpKind = iota + 1 // take the installer lock (003 §Coordination)
	WriteResources                      // write the revision's config maps and secrets as files
	WriteManifest                       // copy Pod's manifest of Revision into the manifest dir, adding Annotations
	RemoveManifest                      // remove Pod's manifest (of Revision) from the manifest dir
	LinkLastKnownGood                   // point the last-known-good link at Revision
	ReleaseLock                         // release the installer lock
)

var opNames = [...]string{"?", "TakeLock", "WriteResources", "WriteManifest", "RemoveManifest", "LinkLastKnownGood", "ReleaseLock"}

// String names the operation as the timeline shows it.
func (k OpKind) String() string {
	if k > 0 && int(k) < len(opNames) {
		return opNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// Op is one file operation. The world runs a list of them in order and
// stops at the first that fails (a TakeLock lost to a race included); the
// next look decides again.
type Op struct {
	Kind        OpKind            // what to do
	Pod         Pod               // the manifest's pod: the operand or the startup-monitor
	Revision    int               // the revision it acts on
	Annotations map[string]string // added to a written manifest (WriteManifest)
}
