package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/clusteroperator/clusteroperatortest"
)

// Cluster mode's guard for seed 001 (cluster/doc.go): the example
// component operator deployed by examples/componentoperator/deploy.yaml,
// a Deployment per component at 0 replicas, on opcert's envtest server
// reached only through kubeconfig files; clustertest's Kubelet runs its
// binary while a Deployment has replicas. The example's certification on
// a cluster is conformance/clusteroperator's
// (TestClusterModeCertifiesTheComponentOperator).

const componentsSubject = "clusteroperator.operator=deployment:" + clusteroperatortest.Namespace + "/{name}-operator"

// coClusterUpgrade is the cluster-mode upgrade scenario the component
// operator's cluster test plays.
const coClusterUpgrade = "../../conformance/clusteroperator/testdata/co-cluster-upgrade.yaml"

// Without --allow-disruption the run is refused, listing each Deployment
// and ConfigMap it would write and why; a user without the components'
// role is told which rights are missing and which ClusterRole grants
// them. Nothing is written either way.
func TestClusterModeComponentsRefused(t *testing.T) {
	c := clusteroperatortest.Deploy(t, sharedWorld(t), exampleBinary(t, "componentoperator"))
	c.Bind(t, "opcert-co-half", false) // not opcert-cluster-components
	c.Bind(t, "opcert-co", true)
	sc := coClusterUpgrade
	before := c.State(t, true)
	args := []string{"run", sc, "--subject", componentsSubject, "--time-scale", "0.01", "--out", filepath.Join(t.TempDir(), "report")}
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"without --allow-disruption", nil, []string{"without --allow-disruption",
			"Deployment.apps example-components/etcd-operator", "Deployment.apps example-components/network-operator",
			"sets the pod template label opcert.io/version to 4.0.0", "step upgrade at +9m0s", "ConfigMap example-components/etcd-admin",
			"step blockUpgrade at +8m0s writes the admin's upgrade blocker of etcd", "nothing was written"}},
		{"a right missing", []string{"--allow-disruption"}, []string{"lacks 14 permissions",
			"patch deployments.apps in namespace example-components (ClusterRole opcert-cluster-components)",
			"watch pods in namespace example-components (ClusterRole opcert-cluster-components)",
			"create configmaps in namespace example-components (ClusterRole opcert-cluster-components)"}},
	} {
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", clustertest.Kubeconfig(t, sharedWorld(t), "opcert-co-half-runner", "opcert-co-half"))...)
		refused(t, tc.name, r, tc.want)
		if strings.Contains(r.stderr, "clusterversions") {
			t.Errorf("%s: the error names clusterversions, which the user may write:\n%s", tc.name, r.stderr)
		}
	}
	// opcert's own operators cannot play seed 001 on a cluster: the
	// cluster's controllers would run their operands beside opcert's
	// simulated pods.
	r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", filepath.Join(t.TempDir(), "report"),
		"--kubeconfig", clustertest.Kubeconfig(t, sharedWorld(t), "opcert-co-runner", "opcert-co"))
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "on a cluster the operator role is played by the team's Deployments") {
		t.Errorf("opcert's own operators on a cluster: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	clustertest.SameState(t, before, c.State(t, true))
}
