package stackable_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 004 (cluster/doc.go): the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, plays the operator, the run
// reaching the server as a cluster (conformancetest.PlayCluster) as a
// user bound only to the shipped roles;
// clustertest's Kubelet runs its binary while the Deployment has
// replicas, and stackablePods plays the cluster's controllers and kubelet
// for the workloads it writes. opcert run's own part (its flags, the
// rights it checks first) is cmd/opcert's to test.

const stackableNS = "example-stackable"

// stackable-steady on the cluster: the example's Deployment passes the
// STACKABLE rules, the status is the operator's and the workloads' the
// cluster's, and the cluster is left as found.
func TestClusterModeCertifiesTheStackableOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/stackableoperator/cmd/stackableoperator")
	cfg := clustertest.Admin(t, api, "stackable-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	clustertest.Apply(t, cfg, "../../examples/stackableoperator/deploy.yaml")
	k := clustertest.StartKubelet(t, cfg, clustertest.KubeletOptions{Namespace: stackableNS, Bin: bin,
		Kubeconfig: clustertest.Kubeconfig(t, api, "stackable-operator")})
	pods := &stackablePods{c: admin, pace: 1500 * time.Millisecond, born: map[string]time.Time{}} // the scenarios' 30s at 0.05
	stopPods := clustertest.Every(50*time.Millisecond, pods.sync)
	t.Cleanup(func() {
		k.Stop()
		stopPods()
	})
	k.WaitRunning(t, "stackableoperator", 10*time.Second)
	// opcert's user has only what the shipped roles grant.
	clustertest.Bind(t, cfg, []string{"../../config/rbac/opcert-cluster.yaml", "../../config/rbac/opcert-cluster-stackable.yaml"}, "opcert-stackable",
		[]string{"opcert-cluster", "opcert-cluster-stackable"}, stackableNS, []string{"opcert-cluster-scale"})
	user := clustertest.User(t, api, "opcert-stackable-runner", "opcert-stackable")
	before := state(t, cfg, admin)
	run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), stackable.Mechanism(stackable.DefaultConfig()), "stackable-steady",
		map[string]string{stackable.RoleOperator: "deployment:" + stackableNS + "/stackableoperator"}, 0.05)
	conformancetest.Certified(t, run, "STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-007", "EXPECT")
	for _, c := range run.Cases {
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
		}
	}
	if t.Failed() {
		t.Log(k.Logs())
	}
	// The status is the operator's; the workloads' status and the pods the
	// cluster's.
	writers := conformancetest.Writers(tl, func(e timeline.Event) string {
		if e.Object.Kind == "Namespace" || e.Actor == "scenario" {
			return ""
		}
		return e.Actor + " " + e.Role + " " + e.Object.Kind + " " + e.Verb
	})
	for _, w := range []string{"operator operator SampleCluster update-status", "operator operator StatefulSet create",
		"cluster workload StatefulSet update-status", "cluster workload Pod create"} {
		if !slices.Contains(writers, w) {
			t.Errorf("no write %q on the timeline: %v", w, writers)
		}
	}
	if len(run.Processes) != 1 || !strings.Contains(strings.Join(run.Processes[0].Endings, "; "), "left at 1 replicas") {
		t.Errorf("the report says of the Deployment: %+v", run.Processes)
	}
	waitState(t, cfg, admin, before)
}

// state is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the SampleClusters, the
// workloads and pods of product clusters, and the operator Deployment's
// replicas.
func state(t *testing.T, cfg *rest.Config, c client.Client) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		out = append(out, fmt.Sprintf("namespace %s %s", ns.Name, ns.Status.Phase))
	}
	out = append(out, clustertest.Labelled(t, cfg)...)
	clusters := &unstructured.UnstructuredList{}
	clusters.SetAPIVersion("samples.opcert.io/v1alpha1")
	clusters.SetKind("SampleClusterList")
	lists := []client.ObjectList{clusters, &appsv1.StatefulSetList{}, &appsv1.DeploymentList{}, &appsv1.DaemonSetList{}, &corev1.PodList{}}
	for _, l := range lists {
		if err := c.List(ctx, l); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			obj := it.(client.Object)
			if _, ok := obj.GetLabels()[instanceLabel]; ok || l == clusters {
				out = append(out, fmt.Sprintf("%T %s/%s", l, obj.GetNamespace(), obj.GetName()))
			}
		}
	}
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: stackableNS, Name: "stackableoperator"}, d); err != nil {
		t.Fatal(err)
	}
	return append(out, fmt.Sprintf("deployment stackableoperator replicas=%d", *d.Spec.Replicas))
}

// waitState waits for the state to be want: the cluster's garbage
// collection (stackablePods here) follows the run's cleanup.
func waitState(t *testing.T, cfg *rest.Config, c client.Client, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := state(t, cfg, c)
		if slices.Equal(got, want) || time.Now().After(deadline) {
			clustertest.SameState(t, want, got)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
