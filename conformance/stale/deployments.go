package stale

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
)

// On a cluster (cluster mode) one Deployment per operator, deployed by the
// team, owns the ClusterOperator of the operator's name under that very
// name (the Deployment's arguments say it, not opcert). Kill scales it to
// 0, restart scales it back; a hang cannot apply (opcert cannot cut a pod
// off the API server). The detector may be a Deployment of the team's too
// (detector_process.go), scaled the same way by killDetector and
// restartDetector.

// fixNames keeps the names of the team's ClusterOperators (the run prefix
// would name objects no one owns), and only the scenario's: the detector
// then sees no other ClusterOperator of the cluster, and the run writes
// to none.
func (w *world) fixNames(fleet []Operator) {
	names := make([]string, 0, len(fleet))
	for _, o := range fleet {
		names = append(names, o.Name)
	}
	w.st.Sched.FixNames(ClusterOperatorGVK.GroupKind(), names...)
}

// touches lists what a scenario played with Deployments (the operators',
// the detector's) writes on the cluster that opcert did not create
// (conformance.Touch). With opcert's own subjects nothing: its operators
// own ClusterOperators opcert creates, under the run's prefix.
func touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	var out []conformance.Touch
	if spec, ok := cast[RoleOperator].Impl.(conformance.Deployment); ok {
		out = operatorTouches(sc, spec)
	}
	if spec, ok := cast[RoleDetector].Impl.(conformance.Deployment); ok {
		out = append(out, detectorTouches(sc, spec)...)
	}
	return out
}

// depKind is a Deployment's kind, as a touch names it.
var depKind = appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind()

// operatorTouches: each operator's ClusterOperator, which the detector
// challenges, and its Deployment, which the run scales.
func operatorTouches(sc *scenarios.Scenario, spec conformance.Deployment) []conformance.Touch {
	coKind := ClusterOperatorGVK.GroupKind()
	var out []conformance.Touch
	dep := func(name, why string) {
		key := spec.For(name)
		out = append(out, conformance.Touch{Kind: depKind, Namespace: key.Namespace, Name: key.Name, Why: why})
	}
	world := scenarioWorld(sc)
	for _, o := range world.Fleet() {
		out = append(out, conformance.Touch{Kind: coKind, Name: o.Name,
			Why: fmt.Sprintf("%s: the detector challenges it (rewrites its condition messages) once they have not moved for --challenge-after, and sets them Unknown if operator %s does not answer", sc.Name, o.Name)})
		why := fmt.Sprintf("%s: scaled to 1 if it has no replica at the start, and back at the end", sc.Name)
		if o.Stopped {
			why = fmt.Sprintf("%s: scaled to 0 at the start (operator %s is stopped), and back at the end", sc.Name, o.Name)
		}
		dep(o.Name, why)
	}
	for _, st := range sc.Steps {
		switch st.Action {
		case actKill, actRestart:
			name := st.Arg.(string)
			dep(name, fmt.Sprintf("%s: step %s %s at +%s scales it to 0%s", sc.Name, st.Action, name, st.Time, map[bool]string{true: " and back"}[st.Action == actRestart]))
		}
	}
	if world.Chaos != nil {
		for _, o := range world.Fleet() {
			dep(o.Name, fmt.Sprintf("%s: random faults (chaos) may scale it to 0 and back at any time", sc.Name))
		}
	}
	return out
}

// detectorTouches: the detector's Deployment, which the run scales; a
// detector that runs looks at every ClusterOperator of the cluster, which
// the touch says since it cannot name them.
func detectorTouches(sc *scenarios.Scenario, spec conformance.Deployment) []conformance.Touch {
	key := spec.For(RoleDetector)
	out := []conformance.Touch{{Kind: depKind, Namespace: key.Namespace, Name: key.Name,
		Why: fmt.Sprintf("%s: scaled to 1 if it has no replica at the start, and back at the end; while it runs, the detector challenges every ClusterOperator of the cluster it looks at, not only the run's", sc.Name)}}
	for _, st := range sc.Steps {
		switch st.Action {
		case actKillDetector, actRestartDetector:
			out = append(out, conformance.Touch{Kind: depKind, Namespace: key.Namespace, Name: key.Name,
				Why: fmt.Sprintf("%s: step %s at +%s scales it to 0%s", sc.Name, st.Action, st.Time, map[bool]string{true: " and back"}[st.Action == actRestartDetector])})
		}
	}
	return out
}
