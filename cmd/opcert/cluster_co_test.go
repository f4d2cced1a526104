package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
)

// Cluster mode's guard for seed 001 (cluster/doc.go): the example
// component operator deployed by examples/componentoperator/deploy.yaml,
// a Deployment per component at 0 replicas, on opcert's envtest server
// reached only through kubeconfig files; clustertest's Kubelet runs its
// binary while a Deployment has replicas. The example's certification on
// a cluster is conformance/clusteroperator's
// (TestClusterModeCertifiesTheComponentOperator).

const (
	componentsNS      = "example-components"
	componentsSubject = "clusteroperator.operator=deployment:" + componentsNS + "/{name}-operator"
)

// coClusterUpgrade is the cluster-mode upgrade scenario the component
// operator's cluster test plays.
const coClusterUpgrade = "../../conformance/clusteroperator/testdata/co-cluster-upgrade.yaml"

// components is the team's cluster for seed 001.
type components struct {
	admin  client.Client
	config *rest.Config
	stand  *clustertest.Kubelet
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

var (
	componentOnce sync.Once
	componentPath string
	componentErr  error
)

// setupComponents deploys the example component operator (both
// Deployments at 0 replicas, version 4.0.0) and starts the Kubelet. The
// test's end stops it and removes what the operators made (their
// ClusterOperators, operands and pods), as the team would to start over.
func setupComponents(t *testing.T) *components {
	t.Helper()
	w := sharedWorld(t)
	componentOnce.Do(func() {
		componentPath = filepath.Join(w.Dir(), "componentoperator")
		out, err := exec.Command("go", "build", "-o", componentPath, "../../examples/componentoperator/cmd/componentoperator").CombinedOutput()
		if err != nil {
			componentErr = fmt.Errorf("building the example component operator: %v\n%s", err, out)
		}
	})
	if componentErr != nil {
		t.Fatal(componentErr)
	}
	cfg := clustertest.Admin(t, w, "components-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	clustertest.Apply(t, cfg, "../../examples/componentoperator/deploy.yaml")
	c := &components{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	c.stand = clustertest.StartKubelet(t, cfg, clustertest.KubeletOptions{Namespace: componentsNS, Bin: componentPath,
		Kubeconfig: kubeconfig(t, w, "component-operator"), Skip: func(d *appsv1.Deployment) bool { return d.Labels[managedByKey] == managedBy }})
	t.Cleanup(func() {
		c.stand.Stop()
		c.startOver(t)
	})
	return c
}

// startOver removes what the operators made: their ClusterOperators and
// their operands and pods.
func (c *components) startOver(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"etcd", "network"} {
		_ = c.admin.Delete(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	in := []client.DeleteAllOfOption{client.InNamespace(componentsNS), client.MatchingLabels{managedByKey: managedBy}}
	for _, obj := range []client.Object{&appsv1.Deployment{}, &appsv1.DaemonSet{}} {
		if err := c.admin.DeleteAllOf(ctx, obj, in...); err != nil {
			t.Error(err)
		}
	}
	if err := c.admin.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(componentsNS), client.GracePeriodSeconds(0)); err != nil {
		t.Error(err)
	}
}

// bind applies opcert's roles and binds them to group: opcert-cluster and
// opcert-cluster-version cluster-wide, opcert-cluster-scale and, if
// components, opcert-cluster-components in the components' namespace.
func (c *components) bind(t *testing.T, group string, components bool) {
	t.Helper()
	inNS := []string{"opcert-cluster-scale"}
	if components {
		inNS = append(inNS, "opcert-cluster-components")
	}
	clustertest.Bind(t, c.config, []string{"../../config/rbac/opcert-cluster.yaml", "../../config/rbac/opcert-cluster-components.yaml"}, group,
		[]string{"opcert-cluster", "opcert-cluster-version"}, componentsNS, inNS)
}

// state is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the ConfigMaps of the
// components' namespace, and each operator Deployment's replicas and
// version label (with resource versions, to show nothing was written).
func (c *components) state(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var nss corev1.NamespaceList
	if err := c.admin.List(ctx, &nss); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		out = append(out, fmt.Sprintf("namespace %s %s", ns.Name, ns.Status.Phase))
	}
	out = append(out, clustertest.Labelled(t, c.config)...)
	var cms corev1.ConfigMapList
	if err := c.admin.List(ctx, &cms, client.InNamespace(componentsNS)); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		out = append(out, fmt.Sprintf("configmap %s %v", cm.Name, cm.Data))
	}
	for _, name := range []string{"etcd-operator", "network-operator"} {
		d := &appsv1.Deployment{}
		if err := c.admin.Get(ctx, client.ObjectKey{Namespace: componentsNS, Name: name}, d); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("deployment %s replicas=%d version=%s", name, *d.Spec.Replicas, d.Spec.Template.Labels[versionKey])
		if versions {
			line += " rv=" + d.ResourceVersion
		}
		out = append(out, line)
	}
	return out
}

// Without --allow-disruption the run is refused, listing each Deployment
// and ConfigMap it would write and why; a user without the components'
// role is told which rights are missing and which ClusterRole grants
// them. Nothing is written either way.
func TestClusterModeComponentsRefused(t *testing.T) {
	c := setupComponents(t)
	c.bind(t, "opcert-co-half", false) // not opcert-cluster-components
	c.bind(t, "opcert-co", true)
	sc := coClusterUpgrade
	before := c.state(t, true)
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
		r := opcert(t, nil, append(append(args, tc.extra...), "--kubeconfig", c.kubeconfig("opcert-co-half-runner", "opcert-co-half"))...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", tc.name, r.code, r.stderr)
		}
		for _, s := range tc.want {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: the error does not say %q:\n%s", tc.name, s, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "clusterversions") {
			t.Errorf("%s: the error names clusterversions, which the user may write:\n%s", tc.name, r.stderr)
		}
	}
	// opcert's own operators cannot play seed 001 on a cluster: the
	// cluster's controllers would run their operands beside opcert's
	// simulated pods.
	r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", filepath.Join(t.TempDir(), "report"),
		"--kubeconfig", c.kubeconfig("opcert-co-runner", "opcert-co"))
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "on a cluster the operator role is played by the team's Deployments") {
		t.Errorf("opcert's own operators on a cluster: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	clustertest.SameState(t, before, c.state(t, true))
}
