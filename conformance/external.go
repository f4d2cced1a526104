package conformance

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/redact"
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

// Core is a team's Go decision core filling a role whose world drives a
// core rather than a reconciler (library mode, package certify's
// Options.Core): seed 003's roles work on a simulated node's files and
// endpoints, which no client gives, and see them through the views of
// their role contract (conformance/staticpod/contract). New makes one
// instance, of the interface the mechanism declares for the role, for
// each process of the role, again at each restart.
type Core struct {
	// New returns a fresh core, of the interface the role declares.
	New func() any
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
	// Command is how to start one instance: the executable, its arguments, its environment.
	Command process.Command
}

// Skipped is what an action returns when it cannot apply to the subject it
// acts on (setCondition on an operand opcert does not simulate): the step
// is recorded on the timeline as skipped, with the reason, the run goes on,
// and the scenario's expectations say how many steps were skipped.
type Skipped struct {
	// Reason says why the action does not apply, for the timeline and the report.
	Reason string
}

// Error is the reason the step was skipped, for the timeline.
func (s *Skipped) Error() string { return "skipped: " + s.Reason }

// Unlike is what an action returns when it was carried out on a real
// cluster in the form the cluster gives it, which is not the simulated
// world the scenario's expectations were written for (a failed pod that
// its StatefulSet replaces at once, where the simulated one stays failed
// until the scenario recovers it): the step is recorded on the timeline
// with the reason, the run goes on, and an expectation that fails after
// it is not held against the subject, said in the EXPECT case. The rules
// judge what the timeline shows, whichever form the step took.
type Unlike struct {
	// Reason says how the step played on the cluster, for the timeline and the report.
	Reason string
}

// Error is how the step played, for the timeline.
func (u *Unlike) Error() string { return "played as the cluster plays it: " + u.Reason }

// External tells whether a subject's name is in the form of a subject
// outside opcert (exec:..., deployment:...).
func External(subject string) bool {
	return strings.HasPrefix(subject, execPrefix) || strings.HasPrefix(subject, deploymentPrefix)
}

// Shown is a subject's name as opcert shows it (reports, progress lines,
// errors, the plan), and how many values it hid: an executable's command
// with the values of its secret-looking flags and environment assignments
// and its URLs' credentials redacted (package redact), requoted when it
// hid any. The process runs with them. A command that does not parse
// (only errors show it) is redacted as free text, uncounted.
func Shown(subject string) (string, int) {
	cmd, ok := strings.CutPrefix(subject, execPrefix)
	if !ok {
		return subject, 0 // a name of opcert's, or a Deployment's: DNS names
	}
	words, err := process.ParseCommand(cmd)
	if err != nil { // refused, and its error must not show it either
		return execPrefix + redact.Text(cmd), 0
	}
	hidden, n := redact.Args(words)
	if n == 0 {
		return subject, 0
	}
	return execPrefix + process.Command(hidden).String(), n
}

// deploymentPrefix marks a subject that is a Deployment on the cluster:
// "deployment:operators/{name}-operator" on the command line.
const deploymentPrefix = "deployment:"

// Deployment is a Deployment on a cluster filling a role in real time
// (cluster mode: opcert run --kubeconfig). Its pods are the subject: they
// were deployed by the team, and opcert only scales the Deployment (kill
// is a scale to 0, restart a scale back to the replicas it had, see
// Deployments). Namespace and Name may hold {name}, replaced by the
// object the instance owns (the scenario's operator name), so that one
// subject names a Deployment per operator.
type Deployment struct {
	// Namespace and Name are the Deployment's; each may hold {name}.
	Namespace, Name string
}

// ParseDeployment reads NS/NAME, each a valid name once {name} is
// replaced.
func ParseDeployment(s string) (Deployment, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" {
		return Deployment{}, fmt.Errorf("%q: want NAMESPACE/NAME, e.g. operators/{name}-operator ({name}: the scenario's operator)", s)
	}
	d := Deployment{Namespace: ns, Name: name}
	// A sample name stands for {name}: what the run makes must be valid.
	key := d.For("x")
	if errs := validation.IsDNS1123Label(key.Namespace); len(errs) > 0 {
		return Deployment{}, fmt.Errorf("%q: namespace %q: %s", s, ns, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(key.Name); len(errs) > 0 {
		return Deployment{}, fmt.Errorf("%q: name %q: %s", s, name, strings.Join(errs, "; "))
	}
	return d, nil
}

// For is the Deployment of the instance that owns object.
func (d Deployment) For(object string) types.NamespacedName {
	r := strings.NewReplacer("{name}", object)
	return types.NamespacedName{Namespace: r.Replace(d.Namespace), Name: r.Replace(d.Name)}
}

// String is the subject's name as it is given: deployment:namespace/name.
func (d Deployment) String() string { return deploymentPrefix + d.Namespace + "/" + d.Name }
