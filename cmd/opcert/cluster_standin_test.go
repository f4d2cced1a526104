package main

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/stale/staletest"
)

// A team's cluster, played on opcert's envtest server for cluster mode's
// tests of opcert run's own part (its guard, the rights it checks, an
// interruption): the example operator deployed by
// examples/staleoperator/deploy.yaml (two Deployments, etcd-operator and
// dns-operator), and clustertest's Kubelet for what envtest lacks, the
// controller-manager and the kubelet. opcert itself reaches the server
// only through kubeconfig files, as it would a remote cluster. The
// certification of the example on a cluster is conformance/stale's
// (TestClusterModeCertifiesTheExampleOperator).

// setupTeam deploys the example operator (staletest.Deploy).
func setupTeam(t *testing.T) *clustertest.Team {
	t.Helper()
	return staletest.Deploy(t, sharedWorld(t), exampleBinary(t, "staleoperator"))
}

// built are the examples' binaries, by name, each built once for all the
// cluster tests into the shared API server's run directory, which goes
// when it stops.
var (
	builtMu sync.Mutex
	built   = map[string]string{}
)

// exampleBinary is the binary of examples/NAME/cmd/NAME.
func exampleBinary(t *testing.T, name string) string {
	t.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	if path, ok := built[name]; ok {
		return path
	}
	path := filepath.Join(sharedWorld(t).Dir(), name)
	if out, err := exec.Command("go", "build", "-o", path, "../../examples/"+name+"/cmd/"+name).CombinedOutput(); err != nil {
		t.Fatalf("building examples/%s: %v\n%s", name, err, out)
	}
	built[name] = path
	return path
}
