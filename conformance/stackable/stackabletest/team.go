// Package stackabletest is seed 004's team on a test cluster, shared by
// the mechanism's cluster test and cmd/opcert's refusal test: the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, clustertest's Kubelet running its
// binary while the Deployment has replicas, opcert's roles bound as a
// team would bind them, and the state a run must leave as it found.
package stackabletest

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/cluster/clustertest"
)

// Namespace is the example's: its operator's Deployment.
const Namespace = "example-stackable"

// InstanceLabel is the label seed 004's scenarios find a product
// cluster's workloads and pods by, which the example puts on its
// workloads and their templates.
const InstanceLabel = "app.kubernetes.io/instance"

// Team is the team's cluster for seed 004.
type Team struct{ *clustertest.Team }

// Deploy deploys the example on api (its Deployment at 1 replica), starts
// the Kubelet running bin and waits for the operator to run; the test's
// end stops it.
func Deploy(t *testing.T, api *apiserver.Server, bin string) *Team {
	t.Helper()
	tm := &Team{clustertest.NewTeam(t, api, "stackable-admin", "../../examples/stackableoperator/deploy.yaml")}
	tm.Start(t, api, "stackable-operator", clustertest.KubeletOptions{Namespace: Namespace, Bin: bin})
	tm.Kubelet.WaitRunning(t, "stackableoperator", 10*time.Second)
	return tm
}

// Bind applies opcert's roles and binds them to group: opcert-cluster
// and, if stackable, opcert-cluster-stackable cluster-wide,
// opcert-cluster-scale in the operator's namespace.
func (tm *Team) Bind(t *testing.T, group string, stackable bool) {
	t.Helper()
	roles := []string{"opcert-cluster"}
	if stackable {
		roles = append(roles, "opcert-cluster-stackable")
	}
	clustertest.Bind(t, tm.Config, []string{"../../config/rbac/opcert-cluster.yaml", "../../config/rbac/opcert-cluster-stackable.yaml"}, group,
		roles, Namespace, []string{"opcert-cluster-scale"})
}

// State is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the SampleClusters, the
// workloads and pods of product clusters, and the operator Deployment's
// replicas, with its resource version if versions (to show that nothing
// was written).
func (tm *Team) State(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	out := clustertest.Namespaces(t, tm.Config, tm.Admin)
	clusters := &unstructured.UnstructuredList{}
	clusters.SetAPIVersion("samples.opcert.io/v1alpha1")
	clusters.SetKind("SampleClusterList")
	lists := []client.ObjectList{clusters, &appsv1.StatefulSetList{}, &appsv1.DeploymentList{}, &appsv1.DaemonSetList{}, &corev1.PodList{}}
	for _, l := range lists {
		if err := tm.Admin.List(ctx, l); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			obj := it.(client.Object)
			if _, ok := obj.GetLabels()[InstanceLabel]; ok || l == clusters {
				out = append(out, fmt.Sprintf("%T %s/%s", l, obj.GetNamespace(), obj.GetName()))
			}
		}
	}
	d := &appsv1.Deployment{}
	if err := tm.Admin.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: "stackableoperator"}, d); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("deployment stackableoperator replicas=%d", *d.Spec.Replicas)
	if versions {
		line += " rv=" + d.ResourceVersion
	}
	return append(out, line)
}
