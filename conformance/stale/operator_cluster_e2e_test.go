package stale_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/scenarios"
)

// Cluster mode for seed 000's operator (cluster/doc.go): the
// example operator deployed as a team would, by
// examples/kind-nightly/operator.yaml (two Deployments, etcd-operator and
// dns-operator, at 1 replica, with ClusterOperators of their own), plays
// the operator role of a scenario that kills dns's at 5m, at a time scale
// of 0.01, the run reaching the server as a cluster
// (conformancetest.PlayCluster) as a user bound only to the shipped
// roles; clustertest's Kubelet runs their pods. The whole server is
// compared before and after the run. opcert run's own part (its flags,
// the rights it checks first, the run's namespace, an interruption) is
// cmd/opcert's to test.

const operatorNS = "example-operators"

// operatorScenario is two operators, dns's killed at 5m (its Deployment
// scaled to 0), over 25 minutes: 15s of wall time at 0.01.
const operatorScenario = `name: cluster-mode
mechanism: stale
duration: 25m
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
  - name: dns
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
steps:
  - at: 5m
    killOperator: dns
`

func TestClusterModeCertifiesTheExampleOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/staleoperator/cmd/staleoperator")
	cfg := clustertest.Admin(t, api, "team-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	clustertest.Apply(t, cfg, "../../examples/kind-nightly/operator.yaml")
	for _, name := range []string{"etcd-operator", "dns-operator"} {
		scaleTo(t, admin, name, 1)
	}
	k := clustertest.StartKubelet(t, cfg, clustertest.KubeletOptions{Namespace: operatorNS, Bin: bin,
		Kubeconfig: clustertest.Kubeconfig(t, api, "example-operator")})
	t.Cleanup(func() {
		k.Stop()
		for _, name := range []string{"etcd", "dns"} {
			_ = admin.Delete(context.Background(), &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	waitClusterOperators(t, admin, k, "etcd", "dns")
	before := snapshot(t, cfg, admin)
	if procs := conformancetest.Running(bin); len(procs) != 2 {
		t.Fatalf("processes of the example operator before the run: %v, want the Kubelet's 2", procs)
	}
	sc := filepath.Join(t.TempDir(), "cluster-mode.yaml")
	if err := os.WriteFile(sc, []byte(operatorScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	// opcert's user has only what the shipped roles grant.
	clustertest.Bind(t, cfg, []string{"../../config/rbac/opcert-cluster.yaml"}, "opcert-ci", []string{"opcert-cluster"},
		operatorNS, []string{"opcert-cluster-scale"})
	user := clustertest.User(t, api, "opcert-ci-runner", "opcert-ci")
	run, _, _ := conformancetest.PlayCluster(t, user, prefix(), stale.Mechanism(stale.DefaultConfig()), sc,
		map[string]string{stale.RoleOperator: "deployment:" + operatorNS + "/{name}-operator"}, 0.01)
	// etcd's operator answered its challenges; dns's, scaled to 0 at 5m,
	// was challenged and set Unknown.
	conformancetest.Certified(t, run, "STALE-001", "STALE-002", "STALE-003", "STALE-004", "STALE-007", "STALE-008")
	if t.Failed() {
		t.Log(k.Logs())
	}
	// The scenario's conditions are not given to a Deployment: the run
	// says so.
	if c, _ := conformancetest.Case(run, "EXPECT"); !strings.Contains(c.Message, "not given to a Deployment") {
		t.Errorf("EXPECT says %q, want a note that the scenario's conditions were not given", c.Message)
	}
	endings := map[string][]string{}
	for _, p := range run.Processes {
		endings[p.Name+" "+p.Command] = p.Endings
	}
	want := map[string][]string{
		"operator/dns deployment example-operators/dns-operator":   {"scaled to 0 by opcert (had 1): its pods stopped as Kubernetes stops them, SIGTERM then SIGKILL after their grace period", "restored to 1 replicas at the end of the run"},
		"operator/etcd deployment example-operators/etcd-operator": {"running at the end of the run, left at 1 replicas as the run found it (opcert stops a Deployment only by scaling it)"},
	}
	for k, w := range want {
		if !slices.Equal(endings[k], w) {
			t.Errorf("%s ended %q, want %q", k, endings[k], w)
		}
	}
	clustertest.SameState(t, before, snapshot(t, cfg, admin))
	k.WaitRunning(t, "dns-operator,etcd-operator", 10*time.Second) // dns back: its Deployment restored
	// The example's processes are the Kubelet's two pods, as before the
	// run: opcert starts none on a cluster.
	if procs := conformancetest.Running(bin); len(procs) != 2 {
		t.Errorf("processes of the example operator after the run: %v, want the Kubelet's 2", procs)
	}
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

// waitClusterOperators waits for the operators to have written their
// ClusterOperators' conditions.
func waitClusterOperators(t *testing.T, c client.Client, k *clustertest.Kubelet, names ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range names {
		for {
			co := &configv1.ClusterOperator{}
			err := c.Get(context.Background(), client.ObjectKey{Name: name}, co)
			if err == nil && len(co.Status.Conditions) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the example operator did not create ClusterOperator %s: %v\n%s", name, err, k.Logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// snapshot is everything on the server the run could leave or change, one
// line each: every namespace (and its phase), every object labelled
// opcert.io/run, every ClusterOperator (its labels), every Deployment of
// the team (its replicas).
func snapshot(t *testing.T, cfg *rest.Config, c client.Client) []string {
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
	var cos configv1.ClusterOperatorList
	if err := c.List(ctx, &cos); err != nil {
		t.Fatal(err)
	}
	for _, co := range cos.Items {
		out = append(out, fmt.Sprintf("clusteroperator %s labels=%v", co.Name, co.Labels))
	}
	var deps appsv1.DeploymentList
	if err := c.List(ctx, &deps, client.InNamespace(operatorNS)); err != nil {
		t.Fatal(err)
	}
	for _, d := range deps.Items {
		out = append(out, fmt.Sprintf("deployment %s replicas=%d", d.Name, *d.Spec.Replicas))
	}
	sort.Strings(out)
	return out
}

// ownScenario is one operator of opcert's own, answering after 1s, over
// 12 minutes: 7s of wall time at 0.01.
const ownScenario = `name: own-operators
mechanism: stale
duration: 12m
operators:
  - name: etcd
    answerDelay: 1s
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
`

// opcert's own operators on a cluster own ClusterOperators the run
// creates (named under its prefix, labelled): the run touches nothing it
// did not create (no --allow-disruption needed: cmd/opcert tests the
// flag), passes, and leaves nothing; the team's ClusterOperator of the
// same name is not written.
func TestClusterModeCertifiesOpcertsOwnOperators(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	cfg := clustertest.Admin(t, api, "own-admin")
	admin, err := client.New(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	teams := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "etcd"}}
	if err := admin.Create(context.Background(), teams); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), teams) })
	sc, err := scenarios.Parse("own.yaml", []byte(ownScenario))
	if err != nil {
		t.Fatal(err)
	}
	m := stale.Mechanism(stale.DefaultConfig())
	cast, err := conformance.Subjects(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if touches := m.(conformance.Clustered).Touches(sc, cast); len(touches) > 0 {
		t.Errorf("opcert's own operators touch what the run did not create: %+v", touches)
	}
	path := filepath.Join(t.TempDir(), "own.yaml")
	if err := os.WriteFile(path, []byte(ownScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, cfg, admin)
	clustertest.Bind(t, cfg, []string{"../../config/rbac/opcert-cluster.yaml"}, "opcert-own", []string{"opcert-cluster"}, "", nil)
	user := clustertest.User(t, api, "opcert-own-runner", "opcert-own") // only what the shipped role grants
	run, _, deleted := conformancetest.PlayCluster(t, user, prefix(), m, path, nil, 0.01)
	conformancetest.Certified(t, run)
	if deleted == 0 {
		t.Errorf("the run's clean-up deleted nothing: its ClusterOperator was not the run's")
	}
	clustertest.SameState(t, before, snapshot(t, cfg, admin))
	after := &configv1.ClusterOperator{}
	if err := admin.Get(context.Background(), client.ObjectKeyFromObject(teams), after); err != nil || after.ResourceVersion != teams.ResourceVersion {
		t.Errorf("the team's ClusterOperator etcd was written: %v, version %s, was %s", err, after.ResourceVersion, teams.ResourceVersion)
	}
}
