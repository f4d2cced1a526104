package main

import (
	"path/filepath"
	"testing"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/olm/olmtest"
)

// Cluster mode's guard for seed 002 (cluster/doc.go): the example
// OLM-managed operator (examples/olmoperator: nothing of opcert in it)
// deployed by examples/olmoperator/deploy.yaml, one Deployment watching
// every namespace, on opcert's envtest server reached only through
// kubeconfig files; clustertest's Kubelet runs its binary while the
// Deployment has replicas. The example's certification on a cluster is
// conformance/olm's (TestClusterModeCertifiesTheOLMOperator).

const olmSubject = "olm.operator=deployment:" + olmtest.Namespace + "/" + olmtest.Operator

// Without --allow-disruption the run is refused, naming the sample CRDs
// it annotates and the Deployment it scales; a user without
// opcert-cluster-olm is told which rights are missing. Nothing is written
// either way.
func TestClusterModeOLMRefused(t *testing.T) {
	tm := olmtest.Deploy(t, sharedWorld(t), exampleBinary(t, "olmoperator"), moduleRoot)
	tm.Bind(t, moduleRoot, "opcert-olm-half", false)
	tm.Bind(t, moduleRoot, "opcert-olm", true)
	before := tm.State(t, true)
	args := []string{"run", "--scenario", "olm-operator-migration", "--subject", olmSubject, "--time-scale", "0.05",
		"--out", filepath.Join(t.TempDir(), "report")}
	for _, tc := range []struct {
		name  string
		extra []string
		group string
		want  []string
	}{
		{"without --allow-disruption", nil, "opcert-olm", []string{"without --allow-disruption",
			"CustomResourceDefinition.apiextensions.k8s.io foos.example.com", "CustomResourceDefinition.apiextensions.k8s.io bars.example.com",
			"held by the annotation opcert.io/olm-run", "Deployment.apps example-olm/olmoperator",
			"scaled to 1 if it has no replica at the start", "nothing was written"}},
		{"a right missing", []string{"--allow-disruption"}, "opcert-olm-half", []string{
			"update customresourcedefinitions.apiextensions.k8s.io cluster-wide (ClusterRole opcert-cluster-olm)",
			"create upgrades.opcert.io cluster-wide (ClusterRole opcert-cluster-olm)",
			"update foos/status.example.com cluster-wide (ClusterRole opcert-cluster-olm)"}},
	} {
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", clustertest.Kubeconfig(t, sharedWorld(t), tc.group+"-runner", tc.group))...)
		refused(t, tc.name, r, tc.want)
	}
	clustertest.SameState(t, before, tm.State(t, true))
}
