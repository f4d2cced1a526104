package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// Process mode for seed 004: the example stackable operator's binary,
// built here, plays the operator of every SampleCluster of a scenario
// against opcert's API server in real time, told the run's namespaces;
// sim/workload plays the pods on the wall clock.

// stackableRestart is stackable-operator-restart with its expectation a
// minute after the restart, not 10s: at 0.03, 10s is 0.3s of wall time,
// less than a new process takes to list its world.
const stackableRestart = `name: stackable-process-restart
mechanism: stackable
duration: 3m
clusters:
  - name: simple
    roles:
      - {name: server, kind: StatefulSet, replicas: 2}
steps:
  - at: 1m
    killOperator: true
  - at: 1m20s
    failPod: {cluster: simple, role: server, pod: 1}
  - at: 1m40s
    restartOperator: true
  - at: 2m40s
    expect: {namespace: default, object: simple, condition: Degraded, status: "True"}
`

func TestProcessStackableCertifiesTheExample(t *testing.T) {
	bin := stackableBinary(t)
	out := filepath.Join(t.TempDir(), "report")
	restart := write(t, t.TempDir(), "restart.yaml", stackableRestart)
	r := opcert(t, nil, "run", "--time-scale", "0.03", "--out", out,
		"../../conformance/stackable/scenarios/02-pod-failed.yaml", "../../conformance/stackable/scenarios/06-stop-start.yaml", restart,
		"--subject", "stackable.operator=exec:"+bin+" --namespaces {namespaces}")
	// The built-ins' expectations are timed for virtual time: 10s after a
	// step is 0.3s of wall time at 0.03, which a loaded machine may miss;
	// the rules allow the real-time tolerance. The restart scenario's are
	// timed for real time, and must pass.
	if r.code != 0 && r.code != 1 {
		t.Fatalf("the example operator: exit %d, want 0 or 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := readReport(t, out)
	if len(rep.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(rep.Runs))
	}
	for _, run := range rep.Runs {
		judged := map[string]reports.Status{}
		for _, c := range run.Cases {
			judged[c.Rule] = c.Status
			builtin := run.Scenario != "stackable-process-restart"
			if c.Status != reports.Pass && c.Status != reports.Skip && (c.Rule != "EXPECT" || !builtin) {
				t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
			}
		}
		// Every scenario moves the table: the rows had something to judge.
		for _, id := range []string{"STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-007"} {
			if judged[id] != reports.Pass {
				t.Errorf("%s: %s is %q, want pass", run.Scenario, id, judged[id])
			}
		}
		// The SampleClusters' status and the workloads are the process's,
		// as the API server's audit names the user of each write.
		writers := map[string]bool{}
		for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
			if e.IsWrite() && e.Actor != "recorder" && (e.Object.Kind == "SampleCluster" && e.Verb == "update-status" || e.Object.Kind == "StatefulSet" && e.Verb == "create") {
				writers[e.Actor+" "+e.Role+" "+e.Object.Kind] = true
			}
		}
		if want := []string{"operator operator SampleCluster", "operator operator StatefulSet"}; !slices.Equal(sortedKeys(writers), want) {
			t.Errorf("%s: status and workload writers %v, want %v", run.Scenario, sortedKeys(writers), want)
		}
		if len(run.Processes) != 1 {
			t.Fatalf("%s: %d processes, want 1", run.Scenario, len(run.Processes))
		}
		p := run.Processes[0]
		want := []string{stoppedAtEnd}
		if run.Scenario == "stackable-process-restart" {
			want = append([]string{killedByStep}, want...)
		}
		if !endedAs(p.Endings, want) || !strings.Contains(p.Command, "--namespaces r") {
			t.Errorf("%s: %s (%s) ended %q, want %q", run.Scenario, p.Name, p.Command, p.Endings, want)
		}
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s: the operator's output %s: %v", run.Scenario, p.Log, err)
		}
	}
	noProcess(t, bin)
}
