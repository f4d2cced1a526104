package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/stale/staletest"
)

// Cluster mode's own part, end to end (docs/guides/cluster.md): opcert run
// --kubeconfig against opcert's envtest server reached only through
// kubeconfig files, as a remote cluster, with the example operator
// deployed as a team would (cluster_standin_test.go), at a time scale of
// 0.01: its guard, the rights it checks, an interruption, bad input.
// Every test compares the whole server before and after the run. Each
// mechanism's certification on a cluster is its package's
// (conformancetest.PlayCluster).

const deploySubject = "operator=deployment:" + staletest.Namespace + "/{name}-operator"

// bindOpcertRBAC applies config/rbac/opcert-cluster.yaml and binds its
// roles to group, as its comments say: opcert-cluster cluster-wide, and,
// if scale, opcert-cluster-scale in the operators' namespace.
func bindOpcertRBAC(t *testing.T, tm *clustertest.Team, group string, scale bool) {
	t.Helper()
	var inNS []string
	if scale {
		inNS = []string{"opcert-cluster-scale"}
	}
	clustertest.Bind(t, tm.Config, []string{"../../config/rbac/opcert-cluster.yaml"}, group, []string{"opcert-cluster"}, staletest.Namespace, inNS)
}

// snapshot is everything on the server a cluster-mode run could leave or
// change, one line each: every namespace (and its phase), every object of
// every listable kind labelled opcert.io/run, every ClusterOperator (its
// labels), every Deployment of the team (its replicas); with versions,
// the resource versions of the ClusterOperators and Deployments too (to
// show nothing was written).
func snapshot(t *testing.T, tm *clustertest.Team, versions bool) []string {
	t.Helper()
	return staletest.Snapshot(t, tm.Config, tm.Admin, versions)
}

// refused fails unless r is a refusal (exit 2) whose message says each of
// want; what names the case.
func refused(t *testing.T, what string, r result, want []string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("%s: exit %d, want 2\n%s", what, r.code, r.stderr)
	}
	for _, s := range want {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("%s: the error does not say %q:\n%s", what, s, r.stderr)
		}
	}
}

func TestClusterModeRefusesWithoutAllowDisruption(t *testing.T) {
	tm := setupTeam(t)
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-refused", "opcert-ci")
	before := snapshot(t, tm, true)
	out := filepath.Join(t.TempDir(), "report")
	r := opcert(t, nil, "run", processScenario(t, "25m"), "--kubeconfig", kc, "--subject", deploySubject, "--time-scale", "0.01", "--out", out)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, s := range []string{"without --allow-disruption", "ClusterOperator.config.openshift.io etcd", "ClusterOperator.config.openshift.io dns",
		"Deployment.apps example-operators/etcd-operator", "Deployment.apps example-operators/dns-operator",
		"step killOperator dns at +5m0s scales it to 0", "the detector challenges it", "nothing was written"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("the refusal does not say %q:\n%s", s, r.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was written: %v", err)
	}
	clustertest.SameState(t, before, snapshot(t, tm, true))
}

func TestClusterModeSaysWhichPermissionIsMissing(t *testing.T) {
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-half", false) // opcert-cluster, not the scale role
	before := snapshot(t, tm, true)
	args := []string{"run", processScenario(t, "25m"), "--subject", deploySubject, "--allow-disruption", "--time-scale", "0.01",
		"--out", filepath.Join(t.TempDir(), "report")}
	for _, tc := range []struct {
		user, group string
		want        []string
		notWant     []string
	}{
		{"opcert-nobody", "nobody", []string{"lacks 15 permissions", "create namespaces cluster-wide", "list namespaces cluster-wide",
			"list clusteroperators.config.openshift.io cluster-wide", "update clusteroperators/status.config.openshift.io cluster-wide",
			"patch deployments/scale.apps in namespace example-operators", cluster.RBACFile}, nil},
		{"opcert-half", "opcert-half", []string{"lacks 2 permissions", "get deployments/scale.apps in namespace example-operators",
			"patch deployments/scale.apps in namespace example-operators", "opcert-cluster-scale"}, []string{"clusteroperators"}},
	} {
		r := opcert(t, nil, append(args, "--kubeconfig", clustertest.Kubeconfig(t, sharedWorld(t), tc.user, tc.group))...)
		refused(t, tc.user, r, tc.want)
		for _, s := range tc.notWant {
			if strings.Contains(r.stderr, s) {
				t.Errorf("%s: the error names %q, which the user has:\n%s", tc.user, s, r.stderr)
			}
		}
	}
	clustertest.SameState(t, before, snapshot(t, tm, true))
}

// SIGINT mid-run: the Deployment opcert scaled to 0 is back at 1, its
// namespace is gone, and opcert exits 130 with no child left.
func TestClusterModeInterrupted(t *testing.T) {
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-ci", true)
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-ci-interrupted", "opcert-ci")
	before := snapshot(t, tm, false)
	out := filepath.Join(t.TempDir(), "report")
	p := startOpcert(t, nil, "run", processScenario(t, "2h"), "--kubeconfig", kc, "--subject", deploySubject,
		"--allow-disruption", "--time-scale", "0.01", "--out", out)
	p.waitLine(t, "everything opcert creates is labelled", 30*time.Second)
	tm.Kubelet.WaitRunning(t, "auth-operator,etcd-operator", 30*time.Second) // dns scaled to 0 at 5m: 3s in
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, cluster.CleanupTimeout+30*time.Second); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, p.stderr.String())
	}
	noChildren(t, p.cmd.Process.Pid)
	if !strings.Contains(p.stderr.String(), "deleted the 1 objects run") {
		t.Errorf("no cleanup said:\n%s", p.stderr.String())
	}
	clustertest.SameState(t, before, snapshot(t, tm, false))
	tm.Kubelet.WaitRunning(t, "auth-operator,dns-operator,etcd-operator", 10*time.Second)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted run wrote --out: %v", err)
	}
}

// opcert's own operators on a cluster own ClusterOperators opcert
// creates (named under the run's prefix, labelled): no --allow-disruption
// needed, and they are gone after the run.
func TestClusterModeOpcertsOwnSubjects(t *testing.T) {
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-ci", true)
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-ci-own", "opcert-ci")
	sc := write(t, t.TempDir(), "own.yaml", `name: own-operators
mechanism: stale
duration: 12m
operators:
  - name: etcd
    answerDelay: 1s
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
`)
	before := snapshot(t, tm, true)
	r := opcert(t, nil, "run", sc, "--kubeconfig", kc, "--time-scale", "0.01", "--out", filepath.Join(t.TempDir(), "report"))
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "deleted the 2 objects run") { // its namespace and ClusterOperator
		t.Errorf("the run's objects were not said deleted:\n%s", r.stderr)
	}
	clustertest.SameState(t, before, snapshot(t, tm, true)) // the team's etcd untouched
}

// What cannot run on a cluster, or needs one, is refused before anything
// is read from it (exit 2).
func TestClusterModeBadInput(t *testing.T) {
	kc := write(t, t.TempDir(), "kubeconfig", "apiVersion: v1\nkind: Config\n")
	dep := "operator=deployment:ops/{name}-operator"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", kc}, "on a cluster, name the scenarios to play"},
		{[]string{"--kubeconfig", kc, "--scenario", "staticpod-ready-at-the-deadline"}, "mechanism staticpod cannot be played on a cluster"},
		{[]string{"--kubeconfig", kc, "--scenario", "stale-hang", "--subject", "operator=exec:/bin/true"}, "an executable runs against opcert's own API server"},
		{[]string{"--scenario", "stale-hang", "--subject", dep}, "a Deployment plays its role on a cluster: give --kubeconfig"},
		{[]string{"--scenario", "stale-hang", "--context", "x"}, "--context needs --kubeconfig"},
		{[]string{"--scenario", "stale-hang", "--allow-disruption"}, "--allow-disruption is for runs on a cluster"},
		{[]string{"--scenario", "stale-hang", "--subject", "operator=deployment:ops"}, "want NAMESPACE/NAME"},
		{[]string{"--kubeconfig", filepath.Join(t.TempDir(), "none"), "--scenario", "stale-hang"}, "no such file"},
		{[]string{"--kubeconfig", kc, "--scenario", "stale-hang"}, "has no current context: give --context"},
	} {
		r := opcert(t, nil, append([]string{"run", "--out", filepath.Join(t.TempDir(), "out")}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
}
