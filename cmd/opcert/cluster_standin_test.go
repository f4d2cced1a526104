package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/sim/apiserver"
)

// A team's cluster, played on opcert's envtest server for cluster mode's
// tests of opcert run's own part (its guard, the rights it checks, an
// interruption): the example operator deployed by
// examples/kind-nightly/operator.yaml (two Deployments, etcd-operator and
// dns-operator), and clustertest's Kubelet for what envtest lacks, the
// controller-manager and the kubelet. opcert itself reaches the server
// only through kubeconfig files, as it would a remote cluster. The
// certification of the example on a cluster is conformance/stale's
// (TestClusterModeCertifiesTheExampleOperator).

const operatorNS = "example-operators"

// team is the cluster as its owners set it up.
type team struct {
	admin  client.Client // the team's own access (system:masters), never opcert's
	config *rest.Config
	stand  *clustertest.Kubelet
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

// setupTeam deploys the example operator (both Deployments at 1 replica)
// and starts the Kubelet; both operators have created their
// ClusterOperators when it returns. The test's end stops the Kubelet (its
// processes die) and deletes the ClusterOperators, so that tests after it
// on the shared server see nothing of it.
func setupTeam(t *testing.T) *team {
	t.Helper()
	w := sharedWorld(t)
	bin := exampleBinary(t, w)
	cfg := clustertest.Admin(t, w, "team-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	clustertest.Apply(t, cfg, "../../examples/kind-nightly/operator.yaml")
	for _, name := range []string{"etcd-operator", "dns-operator"} {
		scaleTo(t, admin, name, 1)
	}
	tm := &team{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	tm.stand = clustertest.StartKubelet(t, cfg, clustertest.KubeletOptions{Namespace: operatorNS, Bin: bin,
		Kubeconfig: kubeconfig(t, w, "example-operator")})
	t.Cleanup(func() {
		tm.stand.Stop()
		for _, name := range []string{"etcd", "dns"} {
			_ = admin.Delete(context.Background(), &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range []string{"etcd", "dns"} {
		for {
			co := &configv1.ClusterOperator{}
			err := admin.Get(context.Background(), client.ObjectKey{Name: name}, co)
			if err == nil && len(co.Status.Conditions) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the example operator did not create ClusterOperator %s: %v\n%s", name, err, tm.stand.Logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return tm
}

// The example operator's binary, built once for all the cluster tests into
// the shared API server's run directory, which goes when it stops.
var (
	exampleOnce sync.Once
	examplePath string
	exampleErr  error
)

func exampleBinary(t *testing.T, w *apiserver.Server) string {
	t.Helper()
	exampleOnce.Do(func() {
		examplePath = filepath.Join(w.Dir(), "staleoperator")
		out, err := exec.Command("go", "build", "-o", examplePath, "../../examples/staleoperator/cmd/staleoperator").CombinedOutput()
		if err != nil {
			exampleErr = fmt.Errorf("building the example operator: %v\n%s", err, out)
		}
	})
	if exampleErr != nil {
		t.Fatal(exampleErr)
	}
	return examplePath
}

func scaleTo(t *testing.T, c client.Client, name string, n int32) {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == n {
		return
	}
	d.Spec.Replicas = &n
	if err := c.Update(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// The keys of seed 001's world cmd/opcert's tests read, as the example
// component operator (examples/componentoperator) names them.
const (
	// managedByKey is managedBy on each operand the example operator
	// writes, and not on one of the operator Deployments the Kubelet runs.
	managedByKey = "app.kubernetes.io/managed-by"
	managedBy    = "componentoperator"
	versionKey   = "opcert.io/version" // on a pod template
)
