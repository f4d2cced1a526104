package stale_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/conformance/stale/staletest"
	"github.com/opcert/opcert/scenarios"
)

// Cluster mode for seed 000's operator (cluster/doc.go): the
// example operator deployed as a team would, by
// examples/staleoperator/deploy.yaml (three Deployments, etcd-operator,
// dns-operator and auth-operator, at 1 replica, with ClusterOperators of
// their own), plays
// the operator role of a scenario that kills dns's at 5m, at a time scale
// of 0.01, the run reaching the server as a cluster
// (conformancetest.PlayCluster) as a user bound only to the shipped
// roles; clustertest's Kubelet runs their pods. The whole server is
// compared before and after the run. opcert run's own part (its flags,
// the rights it checks first, the run's namespace, an interruption) is
// cmd/opcert's to test.

func TestClusterModeCertifiesTheExampleOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/staleoperator/cmd/staleoperator")
	tm := staletest.Deploy(t, api, bin)
	k := tm.Kubelet
	before := staletest.Snapshot(t, tm.Config, tm.Admin, false)
	if procs := conformancetest.Running(bin); len(procs) != 3 {
		t.Fatalf("processes of the example operator before the run: %v, want the Kubelet's 3", procs)
	}
	// dns's Deployment scaled to 0 at 5m, over 25 minutes: 15s of wall
	// time at 0.01.
	sc := staletest.DNSKilled(t, "cluster-mode", "25m")
	// opcert's user has only what the shipped roles grant.
	clustertest.Bind(t, tm.Config, []string{"../../config/rbac/opcert-cluster.yaml"}, "opcert-ci", []string{"opcert-cluster"},
		staletest.Namespace, []string{"opcert-cluster-scale"})
	user := clustertest.User(t, api, "opcert-ci-runner", "opcert-ci")
	run, _, _ := conformancetest.PlayCluster(t, user, prefix(), stale.Mechanism(stale.DefaultConfig()), sc,
		map[string]string{stale.RoleOperator: "deployment:" + staletest.Namespace + "/{name}-operator"}, 0.01)
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
	clustertest.SameState(t, before, staletest.Snapshot(t, tm.Config, tm.Admin, false))
	k.WaitRunning(t, "auth-operator,dns-operator,etcd-operator", 10*time.Second) // dns back: its Deployment restored
	// The example's processes are the Kubelet's three pods, as before the
	// run: opcert starts none on a cluster.
	if procs := conformancetest.Running(bin); len(procs) != 3 {
		t.Errorf("processes of the example operator after the run: %v, want the Kubelet's 3", procs)
	}
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
	before := staletest.Snapshot(t, cfg, admin, false)
	clustertest.Bind(t, cfg, []string{"../../config/rbac/opcert-cluster.yaml"}, "opcert-own", []string{"opcert-cluster"}, "", nil)
	user := clustertest.User(t, api, "opcert-own-runner", "opcert-own") // only what the shipped role grants
	run, _, deleted := conformancetest.PlayCluster(t, user, prefix(), m, path, nil, 0.01)
	conformancetest.Certified(t, run)
	if deleted == 0 {
		t.Errorf("the run's clean-up deleted nothing: its ClusterOperator was not the run's")
	}
	clustertest.SameState(t, before, staletest.Snapshot(t, cfg, admin, false))
	after := &configv1.ClusterOperator{}
	if err := admin.Get(context.Background(), client.ObjectKeyFromObject(teams), after); err != nil || after.ResourceVersion != teams.ResourceVersion {
		t.Errorf("the team's ClusterOperator etcd was written: %v, version %s, was %s", err, after.ResourceVersion, teams.ResourceVersion)
	}
}
