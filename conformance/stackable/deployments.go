package stackable

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/sim/workload"
)

// Cluster mode: a team's Deployment plays the operator role (opcert run
// --kubeconfig F --subject stackable.operator=deployment:NS/NAME
// --allow-disruption), on the cluster, in real time.
//
//   - The Deployment must watch every namespace: opcert creates the
//     scenario's namespaces when the run starts, named under the run's
//     prefix (opcert-<id>-NN-default) and labelled opcert.io/run=<id>, and
//     the SampleClusters in them, with the scenario's names (FixNames,
//     as in process mode). {name} in NS/NAME stands for "operator", the
//     role's one instance.
//   - The cluster's own controllers and kubelet run the workloads the
//     operator writes: sim/workload is off. The pod faults are made as
//     the cluster makes them, on the pods of the run's own namespaces
//     (clusterpods.go): failPod lowers a pod's activeDeadlineSeconds so
//     that its kubelet fails it, and its controller replaces it;
//     recoverPod deletes it if it is still there, failed; losePod is
//     skipped with the reason, said in the EXPECT case. scale, annotate,
//     clusterOperation, break and fix are writes to the SampleClusters
//     opcert created (no disruption).
//   - killOperator scales the Deployment to 0, restartOperator back
//     (conformance.Deployments, which puts it back as found at the end);
//     a Deployment found with no replica is scaled to 1 at the start.
//     Each is a process event on the timeline. A pod takes its time to
//     start on a cluster, which the rules, after a start, count against
//     the operator: deploy it running.
//   - Recording (conformance.Feed, cluster-wide: the run's namespaces are
//     named at run time): the SampleClusters, the workloads and the pods.
//     A write not the run's own is the operator's (actor "operator"), but
//     a workload's status, a write of the controller-manager's field
//     manager and the pods, which are the cluster's (actor "cluster",
//     role workload, as sim/workload's are).
//   - The SampleCluster CRD must be served (fixtures/sampleclusters.crd.yaml;
//     opcert kind up installs it): the preflight names it otherwise.

// clusterActor names the cluster's own controllers and kubelet, whose
// writes the operator reads and no rule judges.
const clusterActor = "cluster"

// controllerManager is the field manager of the cluster's controllers'
// writes that are not a status (a Deployment's revision annotation).
const controllerManager = "kube-controller-manager"

// whoOnCluster names the writer of a write the run did not make: the
// operator, or the cluster's controllers and kubelet.
func whoOnCluster(_ context.Context, _ client.Object, e *timeline.Event) {
	switch {
	case e.Object.Kind == SampleClusterGVK.Kind:
		e.Actor, e.Role = actorOperator, RoleOperator
	case e.Object.Kind == PodGVK.Kind || e.Verb == timeline.VerbUpdateStatus || e.Actor == controllerManager:
		e.Actor, e.Role = clusterActor, workload.Role
	default:
		e.Actor, e.Role = actorOperator, RoleOperator
	}
}

// roleOnCluster is the ClusterRole of config/rbac/opcert-cluster-stackable.yaml.
const roleOnCluster = "opcert-cluster-stackable"

// touches lists what a scenario played by the team's Deployment writes on
// the cluster that opcert did not create: the Deployment's scale. The
// SampleClusters are opcert's. Nothing with opcert's own operators, which
// cannot play on a cluster (build refuses them).
func touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	spec, ok := cast[RoleOperator].Impl.(conformance.Deployment)
	if !ok {
		return nil
	}
	key := spec.For(actorOperator)
	dep := func(why string) conformance.Touch {
		return conformance.Touch{Kind: appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind(), Namespace: key.Namespace, Name: key.Name, Why: why}
	}
	out := []conformance.Touch{dep(sc.Name + ": scaled to 1 if it has no replica at the start, and back at the end")}
	for _, st := range sc.Steps {
		switch st.Action {
		case actKill:
			out = append(out, dep(fmt.Sprintf("%s: step %s at +%s scales it to 0", sc.Name, st.Action, st.Time)))
		case actRestart:
			out = append(out, dep(fmt.Sprintf("%s: step %s at +%s scales it to 0 and back", sc.Name, st.Action, st.Time)))
		}
	}
	return out
}

// access is the rights a run on a cluster needs beyond the SampleClusters'
// and the Deployment's scale: to record the workloads and pods of the
// run's namespaces, cluster-wide, as those are named at run time; and,
// for a scenario that fails pods, to patch (failPod) and delete
// (recoverPod) them there. RBAC cannot keep those to the run's
// namespaces: the guard does (cluster.Guard lets a write through only in
// the namespaces the run created).
func access(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	if _, ok := cast[RoleOperator].Impl.(conformance.Deployment); !ok {
		return nil
	}
	var out []conformance.Access
	for _, gvk := range append(workloadGVKs, PodGVK) {
		out = append(out, conformance.Access{Kind: gvk, Verbs: []string{"list", "watch"}, Role: roleOnCluster})
	}
	if failsPods(sc) {
		out = append(out, conformance.Access{Kind: PodGVK, Verbs: []string{"get", "patch", "delete"}, Role: roleOnCluster})
	}
	return out
}

// failsPods tells whether a scenario fails pods (failPod, recoverPod, a
// load).
func failsPods(sc *scenarios.Scenario) bool {
	return scenarioWorld(sc).Load != nil || slices.ContainsFunc(sc.Steps, func(st scenarios.Step) bool { return st.Action == actFail || st.Action == actRecover })
}
