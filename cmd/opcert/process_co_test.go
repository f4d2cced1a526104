package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// Process mode for seed 001: the example component operator's binary,
// built here, plays each component's operator against opcert's API
// server in real time, a process per component started when the version
// operator applies its Deployment and replaced when an upgrade changes
// it.

// coScenario upgrades two components, a Deployment's and a DaemonSet's,
// from 4.0.0 to 4.0.1: 24s of wall time at 0.02. Their pods take 2m (2.4s)
// to get ready, which the example passes on to them: the API server keeps
// condition times to the second, and a condition that turned False and
// True again within one would show no move of its lastTransitionTime
// (CO-020).
const coScenario = `name: co-process-upgrade
mechanism: clusteroperator
duration: 20m
release: 4.0.0
nodes: [master-0, master-1]
components:
  - name: etcd
    readyAfter: 2m
    operands:
      - {kind: Deployment, name: server, replicas: 2}
  - name: dns
    readyAfter: 2m
    operands:
      - {kind: DaemonSet, name: agent}
steps:
  - at: 3m
    killOperator: etcd
  - at: 3m30s
    restartOperator: etcd
  - at: 5m
    upgrade: 4.0.1
  - at: 19m
    expect: {object: etcd, condition: Progressing, status: "False"}
  - expect: {object: dns, condition: Available, status: "True"}
  - expect: {apiVersion: config.openshift.io/v1, kind: ClusterVersion, object: version, condition: Progressing, status: "False", message: "Cluster version is 4.0.1"}
`

func TestProcessCOCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := filepath.Join(t.TempDir(), "componentoperator")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/componentoperator/cmd/componentoperator").CombinedOutput(); err != nil {
		t.Fatalf("building the example operator: %v\n%s", err, out)
	}
	sc := write(t, t.TempDir(), "co.yaml", coScenario)
	out := filepath.Join(t.TempDir(), "report")
	r := opcert(t, nil, "run", sc, "--time-scale", "0.02", "--out", out, "--subject", "clusteroperator.operator=exec:"+bin)
	if r.code != 0 {
		t.Fatalf("the example operator: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	judged := map[string]reports.Status{}
	for _, c := range run.Cases {
		judged[c.Rule] = c.Status
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
		}
	}
	// An installation and an upgrade of both: the version and Progressing
	// rules had something to judge.
	for _, id := range []string{"CO-001", "CO-002", "CO-003", "CO-004", "CO-005", "CO-006", "CO-007"} {
		if judged[id] != reports.Pass {
			t.Errorf("%s is %q, want pass", id, judged[id])
		}
	}
	// Each ClusterOperator is written by its own process only, as the API
	// server's audit names the user that made each write.
	writes := map[string]int{}
	for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
		if e.IsWrite() && e.Object.Kind == "ClusterOperator" {
			writes[e.Actor+" "+e.Role+" "+e.Object.Name]++
		}
	}
	if writes["operator/etcd operator etcd"] == 0 || writes["operator/dns operator dns"] == 0 || len(writes) != 2 {
		t.Errorf("ClusterOperator writes by actor, role and object: %v, want operator/etcd's and operator/dns's only", writes)
	}
	// The upgrade replaced each process with one of the new version; etcd's
	// was killed and restarted before that.
	if run.TimeScale != 0.02 || len(run.Processes) != 2 {
		t.Fatalf("time scale %v, %d processes", run.TimeScale, len(run.Processes))
	}
	kills := map[string]int{"operator/etcd": 2, "operator/dns": 1}
	for _, p := range run.Processes {
		want := append(slices.Repeat([]string{killedByStep}, kills[p.Name]), stoppedAtEnd)
		if !endedAs(p.Endings, want) || !strings.Contains(p.Command, "componentoperator") {
			t.Errorf("%s (%s) ended %q, want %q", p.Name, p.Command, p.Endings, want)
		}
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s's output %s: %v", p.Name, p.Log, err)
		}
	}
	noProcess(t, bin)
}
