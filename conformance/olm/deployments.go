package olm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/reference/olm/expr"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode: a team's Deployment plays the operator role (opcert run
// --kubeconfig F --subject olm.operator=deployment:NS/NAME
// --allow-disruption), on the cluster, in real time; OLM's part (the gate,
// the OperatorCondition copier) and the aggregator, unless the team brings
// its own as a Go reconciler, are opcert's, in opcert, on the wall clock,
// against the cluster, as in process mode.
//
//   - The Deployment must watch every namespace and speak through its
//     CRs' conditions: opcert creates the scenario's namespaces when the
//     run starts, named under the run's prefix (opcert-<id>-NN-default)
//     and labelled opcert.io/run=<id>, and the CRs in them with the
//     scenario's names. Its Probe and OperatorCondition would carry the
//     run's prefix too, which no Deployment's arguments can name, so a
//     scenario in which the operator must write them (a Probe it manages,
//     an OperatorCondition) is refused before anything is written
//     (checkCluster).
//   - The sample CRDs (Foo, Bar: fixtures/, opcert kind up installs them)
//     are the cluster's, not the run's: the run writes their condition
//     annotations as in every mode, which --allow-disruption agrees to
//     (touches). Two olm runs must not rewrite them at once: a run holds
//     them while it plays (the annotation heldBy on each, naming its
//     operator's namespace; another run's hold is refused unless that
//     namespace is gone, its run over), and puts back the annotations it
//     found at its end, Ctrl-C included (holdCRDs, crdhold.go).
//   - Recording (conformance.Feed, cluster-wide: the run's namespaces are
//     named at run time): the CRs, the Probe and the OperatorCondition. A
//     write not the run's own is the operator's (actor "operator").
//   - killOperator scales the Deployment to 0, restartOperator back
//     (conformance.Deployments, which puts it back as found at the end);
//     a Deployment found with no replica is scaled to 1 at the start. A
//     pod takes its time to start on a cluster, which OLM-011 counts
//     against the operator once it is back: deploy it running.

// roleOnCluster is the ClusterRole of config/rbac/opcert-cluster-olm.yaml.
const roleOnCluster = "opcert-cluster-olm"

// errOwnOnCluster is why opcert's own operators and a team's reconciler
// do not play the operator role on a cluster.
var errOwnOnCluster = fmt.Errorf("%s: on a cluster the %s role is played by the team's Deployment: give --subject %s.%s=deployment:NAMESPACE/NAME",
	Name, RoleOperator, Name, RoleOperator)

// clusterMode is what a run needs of the operator's Deployment: its
// writes recorded, each the operator's.
func clusterMode() player.Mode {
	return player.Mode{Feed: feedRecording(), Who: func(_ context.Context, _ client.Object, e *timeline.Event) {
		e.Actor, e.Role = actorOperator, RoleOperator
	}}
}

// deployOperator plays the operator role with the team's Deployment,
// whose writes it starts recording: before the world is set up, so that
// the operator's first writes are seen.
func (w *world) deployOperator(ctx context.Context, dep conformance.Deployment) error {
	if err := checkCluster(w.spec); err != nil {
		return err
	}
	spec := player.Spec{Role: RoleOperator, Actor: func(string) string { return actorOperator }, Cluster: clusterMode()}
	var err error
	w.deployed, err = player.New(ctx, w.st, dep, spec)
	return err
}

// checkCluster refuses a scenario whose operator must write objects named
// under the run's prefix, which a Deployment's arguments cannot name.
func checkCluster(spec *World) error {
	switch {
	case spec.Probe != nil && !spec.Probe.Nil && spec.Probe.Manager == "operator":
		return errors.New(Name + ": on a cluster the operator's Probe is named under the run's prefix, which a Deployment's arguments cannot name: the operator must speak through its CRs' conditions there (a scenario without probe: {manager: operator}); play this one in process mode")
	case spec.OperatorCondition != nil || spec.gate() == GateOperatorCond:
		return errors.New(Name + ": on a cluster the operator's OperatorCondition is named under the run's prefix, which a Deployment's arguments cannot name: the operator must speak through its CRs' conditions there (a scenario without operatorCondition and gate: operatorcondition); play this one in process mode")
	}
	return nil
}

// touches lists what a scenario played by the team's Deployment writes on
// the cluster that opcert did not create: the sample CRDs' annotations,
// and the Deployment's scale. The CRs, the Probe, the OperatorCondition
// and the Upgrades are opcert's. Nothing with the other forms of the
// operator, which cannot play on a cluster (build refuses them).
func touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	spec, ok := cast[RoleOperator].Impl.(conformance.Deployment)
	if !ok {
		return nil
	}
	var out []conformance.Touch
	for _, name := range sortedKeys(ownedCRDs) {
		out = append(out, conformance.Touch{Kind: CRDGVK.GroupKind(), Name: name,
			Why: fmt.Sprintf("%s: its annotations %s* are set as the scenario says (those of an earlier run removed), and it is held by the annotation %s while the run plays; all put back as found at the end", sc.Name, expr.AnnotationPrefix, heldBy)})
	}
	key := spec.For(actorOperator)
	dep := func(why string) {
		out = append(out, conformance.Touch{Kind: depKind, Namespace: key.Namespace, Name: key.Name, Why: why})
	}
	dep(sc.Name + ": scaled to 1 if it has no replica at the start, and back at the end")
	for _, st := range sc.Steps {
		if st.Arg != actorOperator {
			continue
		}
		switch st.Action {
		case actKill:
			dep(fmt.Sprintf("%s: step %s %s at +%s scales it to 0", sc.Name, st.Action, st.Arg, st.Time))
		case actRestart:
			dep(fmt.Sprintf("%s: step %s %s at +%s scales it to 0 and back", sc.Name, st.Action, st.Arg, st.Time))
		}
	}
	return out
}

// depKind is a Deployment's kind, as a touch names it.
var depKind = appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind()

// access is the rights a run on a cluster needs beyond the Probes' and the
// Deployment's scale: the sample CRDs read and annotated; the
// OperatorConditions, the Upgrades and the CRs created, written and
// recorded in the run's namespaces, cluster-wide, as those are named at
// run time.
func access(_ *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	if _, ok := cast[RoleOperator].Impl.(conformance.Deployment); !ok {
		return nil
	}
	out := []conformance.Access{{Kind: CRDGVK, Verbs: []string{"get", "update"}, Role: roleOnCluster}}
	kinds := []schema.GroupVersionKind{OperatorConditionGVK, UpgradeGVK}
	for _, crd := range sortedKeys(ownedCRDs) {
		kinds = append(kinds, crGVK(ownedCRDs[crd]))
	}
	for _, gvk := range kinds {
		out = append(out, conformance.Access{Kind: gvk, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}, Role: roleOnCluster},
			conformance.Access{Kind: gvk, Subresource: "status", Verbs: []string{"update", "patch"}, Role: roleOnCluster})
	}
	return out
}

// namespaces are the namespaces a scenario's world creates: the
// operator's, the targets and the CRs'.
func (w *World) namespaces() []string {
	out := append([]string{w.namespace()}, w.targets()...)
	for _, cr := range w.CRs {
		out = append(out, cr.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
