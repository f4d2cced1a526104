package stackable

import (
	"context"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode: a team's operator binary plays the operator role
// (opcert run --subject stackable.operator=exec:'./my-operator
// --namespaces {namespaces}'), in real time, against opcert's API server.
//
//   - One process plays the operator of every SampleCluster of the
//     scenario, as the reference's one actor does (the timeline contract:
//     one actor "operator"). Its command's placeholders, also set as
//     OPCERT_<KEY> in its environment: {namespaces} the scenario's
//     namespaces as the API server names them (with the run's prefix,
//     r01-default), comma separated, and {timeScale} the run's time
//     scale. {role} is "operator".
//   - Names: the run's namespaces carry its prefix and keep runs apart;
//     inside them the SampleClusters, the workloads the operator makes
//     and their pods keep the scenario's names (Scheduler.FixNames), so
//     that the pods the operator names in its messages are the timeline's.
//   - Its writes (SampleCluster status, its workloads) reach the run
//     through conformance.Feed, each put down by the API server's audit to the
//     process whose user made it (actor "operator", role operator; a
//     deletion, which the audit cannot name, to the process too); the
//     writes to its workloads wake sim/workload, which plays their pods
//     on the wall clock, as envtest has no kubelet.
//   - killOperator is SIGKILL to its process group, restartOperator a new
//     process; both are process events on the timeline, so that the rules
//     judge nothing the operator missed while down.
//   - Time: scenario times and the pods' pace are scaled (Stage.At,
//     Stage.Scaled); the rules, which have no threshold of their own,
//     allow conformance.RealtimeTolerance for the operator to reflect a
//     change (rules.Config.Tolerance).

// operatorSpec is what the player needs of the operator role: its one
// instance, "operator", owns every SampleCluster.
func (w *world) operatorSpec() player.Spec {
	fix := func(context.Context, *player.Player) error {
		fixNames(w.st.Sched)
		return nil
	}
	return player.Spec{Role: RoleOperator, Actor: func(string) string { return actorOperator },
		Simulate: func(ctx context.Context, _ string) error { return w.startOperator(ctx) },
		Vars:     func(context.Context, string) (map[string]string, error) { return w.vars(), nil },
		Process:  player.Mode{Prepare: fix, Feed: feedRecording(), Who: deleted},
		Cluster:  player.Mode{Prepare: fix, Feed: player.Recording(recordedFields, append(feedRecording().Kinds, PodGVK)...), Who: whoOnCluster},
	}
}

// deleted puts a deletion down to the operator's process, which the
// API server's audit cannot name (player.Mode.Who): the fed kinds' only
// writers besides the run's own actors, which delete none, are the
// operator's process: a deletion is its (a role it no longer wants, a
// stopped cluster's DaemonSet).
func deleted(_ context.Context, _ client.Object, e *timeline.Event) {
	e.Actor, e.Role = actorOperator, RoleOperator
}

// fixNames keeps the scenario's names, in the run's namespaces, for the
// kinds a team's operator names or reads the names of: its clusters, the
// workloads named after them and their pods.
func fixNames(sched *sim.Scheduler) {
	sched.FixNames(SampleClusterGVK.GroupKind())
	sched.FixNames(PodGVK.GroupKind())
	for _, gvk := range workloadGVKs {
		sched.FixNames(gvk.GroupKind())
	}
}

// feedRecording is what the run must see of the process's writes: its
// SampleClusters and workloads, with the fields the rules read. Pods are
// written by the run's own actors only (sim/workload).
func feedRecording() *record.Recording {
	return player.Recording(recordedFields, append([]schema.GroupVersionKind{SampleClusterGVK}, workloadGVKs...)...)
}

// placeholders are the keys of vars, which an operator's command may use
// (conformance.Role.Placeholders).
var placeholders = []string{"namespaces", "timeScale"}

// vars are the placeholders of the operator's process.
func (w *world) vars() map[string]string {
	sched := w.st.Sched
	var namespaces []string
	for _, ns := range w.spec.namespaces() {
		namespaces = append(namespaces, sched.ServerName(namespaceKind, ns))
	}
	return map[string]string{
		"namespaces": strings.Join(namespaces, ","),
		"timeScale":  strconv.FormatFloat(w.st.Scale, 'g', -1, 64),
	}
}

// namespaceKind names namespaces for the run's prefix.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}
