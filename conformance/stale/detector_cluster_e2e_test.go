package stale_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 000's detector: the example detector, deployed as
// a team would deploy it (a Deployment whose arguments are the team's:
// the waits at the run's scale and the run's prefix, since the runs share
// the API server), plays the detector of built-ins that challenge, mark
// and kill the detector, opcert's reference operators beside it, at
// --time-scale 0.01, the run reaching the server as a cluster
// (conformancetest.PlayCluster). envtest runs no pods: clustertest's
// Kubelet plays the controller-manager and the kubelet for the detectors'
// namespace. A Deployment that runs and never writes must not pass.
//
// The kubelet's directory and the binary's are the test's: the parallel
// subtests end before its cleanups run.
const detectorNS = "stale-detectors"

func TestClusterModeCertifiesTheExampleDetector(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, detectorExamples)
	c, err := client.New(api.Config, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: detectorNS}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	k := clustertest.StartKubelet(t, api.Config, clustertest.KubeletOptions{Namespace: detectorNS, Bin: bin,
		Kubeconfig: clustertest.Kubeconfig(t, api, "stale-detector-pod")})
	t.Cleanup(k.Stop)
	for _, name := range []string{"stale-operator-death", "stale-detector-returns"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run, writers, dep := playDeployed(t, c, name, nil)
			certifyDetector(t, run, writers)
			if k.Started(dep) == 0 {
				t.Errorf("%s: no pod of Deployment %s ran", name, dep)
			}
			if t.Failed() {
				t.Log(k.Logs())
			}
		})
	}
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		run, _, _ := playDeployed(t, c, "stale-operator-death", []string{"/bin/sleep", "600"})
		failed := run.Error != ""
		for _, cs := range run.Cases {
			failed = failed || cs.Status == reports.Fail
		}
		if !failed && len(run.NotJudged) == 0 {
			t.Errorf("a detector Deployment that does nothing passed: %+v", run.Cases)
		}
	})
}

// playDeployed deploys a detector for one run (no replica: the run scales
// it up, and back down at its end), the example detector or, if command is
// given, that command, and plays the built-in name with it as the
// detector, on the server reached as a cluster. It returns the run, who
// wrote the ClusterOperators (actor and role) and the Deployment's name.
func playDeployed(t *testing.T, c client.Client, name string, command []string) (reports.Run, []string, string) {
	t.Helper()
	pre := prefix()
	dep := "detector-" + strings.TrimSuffix(pre, "-")
	zero := int32(0)
	labels := map[string]string{"app": dep}
	ctr := corev1.Container{Name: "detector", Image: "staledetector", Command: command,
		Args: []string{"--prefix", pre, "--challenge-after", "6s", "--unknown-after", "6s", "--silence", "20m"}}
	if command != nil {
		ctr.Args = nil
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: detectorNS, Name: dep},
		Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}}}}}
	if err := c.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	run, tl, _ := conformancetest.PlayCluster(t, api.Config, pre, stale.Mechanism(stale.DefaultConfig()), name,
		map[string]string{stale.RoleDetector: "deployment:" + detectorNS + "/" + dep}, detectorScale)
	return run, conformancetest.Writers(tl, func(e timeline.Event) string {
		if e.Object.Kind != "ClusterOperator" {
			return ""
		}
		return e.Actor + " " + e.Role
	}), dep
}
