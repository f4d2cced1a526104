// Package olmtest is seed 002's team on a test cluster, shared by the
// mechanism's cluster test and cmd/opcert's refusal test: the example
// OLM-managed operator (examples/olmoperator, nothing of opcert in it)
// deployed by examples/olmoperator/deploy.yaml, one Deployment watching
// every namespace, clustertest's Kubelet running its binary while the
// Deployment has replicas, opcert's roles bound as a team would bind
// them, and the state a run must leave as it found.
package olmtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/cluster/clustertest"
)

// Namespace and Operator are the example's Deployment.
const (
	Namespace = "example-olm"
	Operator  = "olmoperator"
)

// Team is the team's cluster for seed 002.
type Team struct{ *clustertest.Team }

// Deploy deploys the example on api (its Deployment at 1 replica), starts
// the Kubelet running bin and waits for the operator to run; the test's
// end stops it. The pods reach api as a user with only the rights
// deploy.yaml grants its service account (its ClusterRole bound to the
// user's group), so that a right the manifest lacks fails here as on a
// real cluster. root is the test package's way to the repository's root
// (../..).
func Deploy(t *testing.T, api *apiserver.Server, bin, root string) *Team {
	t.Helper()
	tm := &Team{clustertest.NewTeam(t, api, "olm-admin", root+"/examples/olmoperator/deploy.yaml")}
	const group = "example-olmoperator-pods"
	clustertest.Bind(t, tm.Config, nil, group, []string{"example-olmoperator"}, Namespace, nil)
	tm.Kubelet = clustertest.StartKubelet(t, tm.Config, clustertest.KubeletOptions{Namespace: Namespace, Bin: bin,
		Kubeconfig: clustertest.Kubeconfig(t, api, "olm-operator", group)})
	t.Cleanup(tm.Kubelet.Stop)
	tm.Kubelet.WaitRunning(t, Operator, 10*time.Second)
	return tm
}

// Bind applies opcert's roles and binds them to group: opcert-cluster
// and, if olm, opcert-cluster-olm cluster-wide, opcert-cluster-scale in
// the operator's namespace. root is as Deploy's.
func (tm *Team) Bind(t *testing.T, root, group string, olm bool) {
	t.Helper()
	roles := []string{"opcert-cluster"}
	if olm {
		roles = append(roles, "opcert-cluster-olm")
	}
	clustertest.Bind(t, tm.Config, []string{root + "/config/rbac/opcert-cluster.yaml", root + "/config/rbac/opcert-cluster-olm.yaml"}, group,
		roles, Namespace, []string{"opcert-cluster-scale"})
}

// State is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the sample CRDs' annotations, and
// the example's Deployments' replicas, with their resource versions if
// versions (to show that nothing was written).
func (tm *Team) State(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	out := clustertest.Namespaces(t, tm.Config, tm.Admin)
	for _, name := range []string{"bars.example.com", "foos.example.com"} {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		if err := tm.Admin.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			t.Fatal(err)
		}
		ann := crd.GetAnnotations()
		for _, k := range slices.Sorted(maps.Keys(ann)) {
			out = append(out, fmt.Sprintf("crd %s %s=%s", name, k, ann[k]))
		}
	}
	return append(out, clustertest.Deployments(t, tm.Admin, Namespace, versions)...)
}
