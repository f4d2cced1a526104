package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 001 (README "On a cluster"): the example component
// operator deployed by examples/componentoperator/deploy.yaml, a
// Deployment per component at 0 replicas, plays each component's operator
// on opcert's envtest server reached only through kubeconfig files; the
// stand-in runs its binary while a Deployment has replicas (its version
// from the pod template's label, by the downward API) and plays the
// operands' pods.

const (
	componentsNS      = "example-components"
	componentsSubject = "clusteroperator.operator=deployment:" + componentsNS + "/{name}-operator"
)

// coClusterUpgrade is co-clean-install's two components, installed (in
// about 2s of wall time at 0.01: 300ms a pod), blocked by the admin,
// upgraded once unblocked: 18s of wall time.
const coClusterUpgrade = `name: co-cluster-upgrade
mechanism: clusteroperator
duration: 30m
release: 4.0.0
components:
  - name: etcd
    operands:
      - {kind: Deployment, name: etcd, replicas: 3}
  - name: network
    operands:
      - {kind: DaemonSet, name: network-agent}
steps:
  - at: 8m
    blockUpgrade: {component: etcd, message: Back up etcd before upgrading}
  - at: 9m
    upgrade: 4.0.1
  - at: 10m
    unblockUpgrade: etcd
  - at: 29m
    expect: {object: etcd, condition: Progressing, status: "False"}
  - expect: {apiVersion: config.openshift.io/v1, kind: ClusterVersion, object: version, condition: Progressing, status: "False", message: "Cluster version is 4.0.1"}
`

// components is the team's cluster for seed 001.
type components struct {
	admin  client.Client
	config *rest.Config
	stand  *standIn
	// kubeconfig writes a kubeconfig of a new user in groups.
	kubeconfig func(user string, groups ...string) string
}

var (
	componentOnce sync.Once
	componentPath string
	componentErr  error
)

// setupComponents deploys the example component operator (both
// Deployments at 0 replicas, version 4.0.0) and starts the stand-in. The
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
	_, cfg, err := w.AddUser("components-admin", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.WarningHandler = rest.NoWarnings{}
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, cfg, "../../examples/componentoperator/deploy.yaml")
	c := &components{admin: admin, config: cfg, kubeconfig: func(user string, groups ...string) string {
		data, _, err := w.AddUserInGroups(user, "", groups)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, t.TempDir(), "kubeconfig", string(data))
	}}
	c.stand = startStandInIn(t, cfg, componentsNS, kubeconfig(t, w, "component-operator"), componentPath)
	t.Cleanup(func() {
		c.stand.stop()
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
	apply(t, c.config, "../../config/rbac/opcert-cluster.yaml")
	apply(t, c.config, "../../config/rbac/opcert-cluster-components.yaml")
	cs, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	subjects := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}}
	for _, role := range []string{"opcert-cluster", "opcert-cluster-version"} {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-" + role}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	roles := []string{"opcert-cluster-scale"}
	if components {
		roles = append(roles, "opcert-cluster-components")
	}
	for _, role := range roles {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: group + "-" + role, Namespace: componentsNS}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		if _, err := cs.RbacV1().RoleBindings(componentsNS).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
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
	out = append(out, labelled(t, &team{config: c.config})...)
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

// co-clean-install, then an upgrade from a clean cluster: the example
// passes the CO rules and the expectations; the version operator moved each operator's version
// label to 4.0.1 and the run put it back, with the replicas.
func TestClusterModeCertifiesTheComponentOperator(t *testing.T) {
	c := setupComponents(t)
	c.bind(t, "opcert-co", true)
	kc := c.kubeconfig("opcert-co-runner", "opcert-co") // only what the shipped roles grant
	before := c.state(t, false)
	args := []string{"--kubeconfig", kc, "--subject", componentsSubject, "--allow-disruption", "--time-scale", "0.01"}
	for _, tc := range []struct {
		scenario string
		// pass must pass; every other case passes or is skipped.
		pass []string
	}{
		{"co-clean-install", []string{"CO-001", "CO-002", "CO-003", "CO-006", "CO-007", "CO-020", "EXPECT"}},
		// CO-004 owes nothing here: the stand-in's pods (300ms each at
		// 0.01) roll an operand out in about 1.2s, under the "second or
		// two" after which 001 asks for Progressing; it passed only when a
		// busy machine made the rollout longer. Process mode's test judges
		// it on the built-ins.
		{"co-cluster-upgrade", []string{"CO-001", "CO-002", "CO-003", "CO-006", "CO-007", "CO-009", "CO-020", "EXPECT"}},
	} {
		out := filepath.Join(t.TempDir(), "report")
		sc := []string{"--scenario", tc.scenario}
		if tc.scenario == "co-cluster-upgrade" {
			sc = []string{write(t, t.TempDir(), "upgrade.yaml", coClusterUpgrade)}
		}
		c.stand.startedSince()
		r := opcert(t, nil, append(append([]string{"run", "--out", out}, sc...), args...)...)
		if r.code != 0 {
			t.Fatalf("%s on the cluster: exit %d, want 0\n%s\n%s\n%s", tc.scenario, r.code, r.stdout, r.stderr, c.stand.logs())
		}
		run := readReport(t, out).Runs[0]
		judged := map[string]reports.Status{}
		for _, cs := range run.Cases {
			judged[cs.Rule] = cs.Status
			if cs.Status != reports.Pass && cs.Status != reports.Skip {
				t.Errorf("%s %s: %s %s", run.Scenario, cs.Rule, cs.Status, cs.Message)
			}
		}
		for _, id := range tc.pass {
			if judged[id] != reports.Pass {
				t.Errorf("%s: %s is %s, want pass", run.Scenario, id, judged[id])
			}
		}
		for _, p := range run.Processes {
			if !strings.Contains(strings.Join(p.Endings, "; "), "label opcert.io/version restored to 4.0.0") {
				t.Errorf("%s: %s %q does not say its label was restored", run.Scenario, p.Name, p.Endings)
			}
		}
		if tc.scenario == "co-cluster-upgrade" {
			moved := labelWrites(t, filepath.Join(out, run.Timeline))
			for _, name := range []string{"etcd-operator", "network-operator"} {
				if got := strings.Join(moved[name], ","); got != `"4.0.1"` {
					t.Errorf("the version operator set %s's label to %s, want 4.0.1 once", name, got)
				}
			}
			// The operators were stopped before their label went back: no
			// pod of 4.0.0 ran after the upgrade, nor rolled the operands
			// back.
			want := []string{"etcd-operator 4.0.0", "etcd-operator 4.0.1", "network-operator 4.0.0", "network-operator 4.0.1"}
			if got := c.stand.startedSince(); !slices.Equal(sorted(got), want) {
				t.Errorf("the operators' pods started %v, want %v", got, want)
			}
			etcd, agent := &appsv1.Deployment{}, &appsv1.DaemonSet{}
			for name, obj := range map[string]client.Object{"etcd": etcd, "network-agent": agent} {
				if err := c.admin.Get(context.Background(), client.ObjectKey{Namespace: componentsNS, Name: name}, obj); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := etcd.Spec.Template.Labels[versionKey], agent.Spec.Template.Labels[versionKey]; a != "4.0.1" || b != "4.0.1" {
				t.Errorf("the operands ask %q and %q after the run, want 4.0.1", a, b)
			}
		}
		sameState(t, before, c.state(t, false))
		c.stand.waitRunning(t, "", 10*time.Second) // both back at 0 replicas
		c.startOver(t)                             // the next scenario installs afresh
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// labelWrites are, per Deployment, the version labels the version
// operator's writes to it set, from a run's timeline.
func labelWrites(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e timeline.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Actor != "version-operator" || e.Object.Kind != "Deployment" || e.Object.Namespace != componentsNS {
			continue
		}
		for _, f := range e.Fields {
			if f.Path == "spec.template.metadata.labels" {
				var labels map[string]string
				if err := json.Unmarshal(f.After, &labels); err != nil {
					t.Fatalf("%s: %v", f.After, err)
				}
				out[e.Object.Name] = append(out[e.Object.Name], fmt.Sprintf("%q", labels[versionKey]))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
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
	sc := write(t, t.TempDir(), "upgrade.yaml", coClusterUpgrade)
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
	sameState(t, before, c.state(t, true))
}
