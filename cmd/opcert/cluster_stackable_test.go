package main

import (
	"path/filepath"
	"testing"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/stackable/stackabletest"
)

// Cluster mode's guard for seed 004 (cluster/doc.go): the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, on opcert's envtest server reached
// only through kubeconfig files; clustertest's Kubelet runs its binary
// while the Deployment has replicas. The example's certification on a
// cluster is conformance/stackable's
// (TestClusterModeCertifiesTheStackableOperator).

const stackableSubject = "stackable.operator=deployment:" + stackabletest.Namespace + "/stackableoperator"

// Without --allow-disruption the run is refused, naming the Deployment
// it would scale; a user without opcert-cluster-stackable is told which
// rights are missing. Nothing is written either way.
func TestClusterModeStackableRefused(t *testing.T) {
	tm := stackabletest.Deploy(t, sharedWorld(t), exampleBinary(t, "stackableoperator"))
	tm.Bind(t, "opcert-stackable-half", false)
	tm.Bind(t, "opcert-stackable", true)
	before := tm.State(t, true)
	args := []string{"run", "--scenario", "stackable-operator-restart", "--subject", stackableSubject, "--time-scale", "0.05",
		"--out", filepath.Join(t.TempDir(), "report")}
	for _, tc := range []struct {
		name  string
		extra []string
		group string
		want  []string
	}{
		{"without --allow-disruption", nil, "opcert-stackable", []string{"without --allow-disruption",
			"Deployment.apps example-stackable/stackableoperator", "scaled to 1 if it has no replica at the start",
			"step restartOperator at +4m0s scales it to 0 and back", "nothing was written"}},
		{"a right missing", []string{"--allow-disruption"}, "opcert-stackable-half", []string{
			"list statefulsets.apps cluster-wide (ClusterRole opcert-cluster-stackable)", "watch pods cluster-wide (ClusterRole opcert-cluster-stackable)"}},
	} {
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", clustertest.Kubeconfig(t, sharedWorld(t), tc.group+"-runner", tc.group))...)
		refused(t, tc.name, r, tc.want)
	}
	clustertest.SameState(t, before, tm.State(t, true))
}
