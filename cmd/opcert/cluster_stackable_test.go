package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
)

// Cluster mode's guard for seed 004 (cluster/doc.go): the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, on opcert's envtest server reached
// only through kubeconfig files; clustertest's Kubelet runs its binary
// while the Deployment has replicas. The example's certification on a
// cluster is conformance/stackable's
// (TestClusterModeCertifiesTheStackableOperator).

const (
	stackableNS      = "example-stackable"
	stackableSubject = "stackable.operator=deployment:" + stackableNS + "/stackableoperator"
	// instanceLabel is the label seed 004's scenarios find a cluster's
	// workloads and pods by, which the example puts on its workloads and
	// their templates.
	instanceLabel = "app.kubernetes.io/instance"
)

var (
	stackableOnce sync.Once
	stackablePath string
	stackableErr  error
)

// stackableBinary builds the example stackable operator once for the
// cluster tests, into the shared API server's run directory,
// which goes when it stops.
func stackableBinary(t *testing.T) string {
	t.Helper()
	w := sharedWorld(t)
	stackableOnce.Do(func() {
		stackablePath = filepath.Join(w.Dir(), "stackableoperator")
		out, err := exec.Command("go", "build", "-o", stackablePath, "../../examples/stackableoperator/cmd/stackableoperator").CombinedOutput()
		if err != nil {
			stackableErr = fmt.Errorf("building the example stackable operator: %v\n%s", err, out)
		}
	})
	if stackableErr != nil {
		t.Fatal(stackableErr)
	}
	return stackablePath
}

// stackableTeam is the team's cluster for seed 004.
type stackableTeam struct {
	admin  client.Client
	config *rest.Config
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

// setupStackable deploys the example (its Deployment at 1 replica), starts
// the Kubelet and waits for the operator to run; the test's end stops it.
func setupStackable(t *testing.T) *stackableTeam {
	t.Helper()
	w := sharedWorld(t)
	bin := stackableBinary(t)
	cfg := clustertest.Admin(t, w, "stackable-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	clustertest.Apply(t, cfg, "../../examples/stackableoperator/deploy.yaml")
	tm := &stackableTeam{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	stand := clustertest.StartKubelet(t, cfg, clustertest.KubeletOptions{Namespace: stackableNS, Bin: bin,
		Kubeconfig: kubeconfig(t, w, "stackable-operator")})
	t.Cleanup(stand.Stop)
	stand.WaitRunning(t, "stackableoperator", 10*time.Second)
	return tm
}

// bind applies opcert's roles and binds them to group: opcert-cluster
// and, if stackable, opcert-cluster-stackable cluster-wide,
// opcert-cluster-scale in the operator's namespace.
func (tm *stackableTeam) bind(t *testing.T, group string, stackable bool) {
	t.Helper()
	roles := []string{"opcert-cluster"}
	if stackable {
		roles = append(roles, "opcert-cluster-stackable")
	}
	clustertest.Bind(t, tm.config, []string{"../../config/rbac/opcert-cluster.yaml", "../../config/rbac/opcert-cluster-stackable.yaml"}, group,
		roles, stackableNS, []string{"opcert-cluster-scale"})
}

// state is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the SampleClusters, the
// workloads and pods of product clusters, and the operator Deployment's
// replicas (with its resource version, to show nothing was written).
func (tm *stackableTeam) state(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var nss corev1.NamespaceList
	if err := tm.admin.List(ctx, &nss); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		out = append(out, fmt.Sprintf("namespace %s %s", ns.Name, ns.Status.Phase))
	}
	out = append(out, clustertest.Labelled(t, tm.config)...)
	clusters := &unstructured.UnstructuredList{}
	clusters.SetAPIVersion("samples.opcert.io/v1alpha1")
	clusters.SetKind("SampleClusterList")
	lists := []client.ObjectList{clusters, &appsv1.StatefulSetList{}, &appsv1.DeploymentList{}, &appsv1.DaemonSetList{}, &corev1.PodList{}}
	for _, l := range lists {
		if err := tm.admin.List(ctx, l); err != nil {
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
	if err := tm.admin.Get(ctx, client.ObjectKey{Namespace: stackableNS, Name: "stackableoperator"}, d); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("deployment stackableoperator replicas=%d", *d.Spec.Replicas)
	if versions {
		line += " rv=" + d.ResourceVersion
	}
	return append(out, line)
}

// Without --allow-disruption the run is refused, naming the Deployment
// it would scale; a user without opcert-cluster-stackable is told which
// rights are missing. Nothing is written either way.
func TestClusterModeStackableRefused(t *testing.T) {
	tm := setupStackable(t)
	tm.bind(t, "opcert-stackable-half", false)
	tm.bind(t, "opcert-stackable", true)
	before := tm.state(t, true)
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
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", tm.kubeconfig(tc.group+"-runner", tc.group))...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", tc.name, r.code, r.stderr)
		}
		for _, s := range tc.want {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: the error does not say %q:\n%s", tc.name, s, r.stderr)
			}
		}
	}
	clustertest.SameState(t, before, tm.state(t, true))
}
