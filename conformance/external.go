package conformance

import (
	"github.com/opcert/opcert/process"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Subjects opcert did not write. A mechanism's role that accepts them
// builds its instances from these forms (Subject.Impl) as well as from its
// own implementation types; the generic layers only carry them.

// Reconciler is a team's Go reconciler filling a role, run by the
// simulator in virtual time like the reference (library mode, package
// certify).
type Reconciler struct {
	// New builds one instance of the role: once per operator for a role
	// played once per object (the stale operator), once for a role over
	// every object (the stale detector), again at each restart.
	New func(Instance) (reconcile.Reconciler, error)
}

// Instance is what one instance of a role gets from the world.
type Instance struct {
	// Client talks to the run's API server. It records every write on the
	// timeline and keeps the run's objects apart from other runs', so the
	// reconciler sees the scenario's names.
	Client client.Client
	// Clock is the run's clock. Every time the reconciler uses must come
	// from it: in virtual time it jumps, and a time read elsewhere (time.Now,
	// metav1.Now) is hours or years away from the run's.
	Clock clock.PassiveClock
	// Name is the object this instance owns (the ClusterOperator of the
	// operator it plays), "" for a role over every object.
	Name string
}

// execPrefix marks a subject that is an executable: "exec:./bin/manager
// --name {name}" on the command line.
const execPrefix = "exec:"

// Process is an executable filling a role in real time (process mode).
// It is started once per instance of the role, and again at each restart,
// with {name} (the object the instance owns) and {role} replaced in its
// arguments, KUBECONFIG set to a kubeconfig of its own user (its server a
// proxy that a hang cuts), and OPCERT_NAME and OPCERT_ROLE set.
type Process struct {
	Command process.Command
}

// Skipped is what an action returns when it cannot apply to the subject it
// acts on (setCondition on an operand opcert does not simulate): the step
// is recorded on the timeline as skipped, with the reason, the run goes on,
// and the scenario's expectations say how many steps were skipped.
type Skipped struct{ Reason string }

func (s *Skipped) Error() string { return "skipped: " + s.Reason }
