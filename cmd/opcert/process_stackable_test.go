package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Process mode for seed 004: the example stackable operator
// (examples/stackableoperator, plain client-go, nothing of opcert), built
// here, plays the operator of every SampleCluster of each built-in
// against opcert's API server in real time, with no argument: it reads
// KUBECONFIG and OPCERT_NAMESPACES; sim/workload plays the pods on the
// wall clock.
//
// Time scales (conformance/stackable/README.md, "Process mode"): the
// rules and the expectations allow the scaled reaction bound plus
// conformance.RealtimeTolerance (1s, not scaled), so a scenario's quiet
// stretches must outlast that slack in wall time: stackable-operator-
// restart's last 2m after the restart is 1.2s at 0.01, under the 1.3s
// slack (nothing judged), 2.4s at 0.02 (slack 1.6s). stackable-load's 2h
// plays at 0.005 (36s) with a reaction bound of 2m (0.6s, slack 1.6s):
// its 20 clusters start with the process, whose first 40 API calls take
// about a second on a busy machine, more than 30s at 0.005 and the
// tolerance. The two sets run one after the other (side by side, on two
// cores other work shares, a process took 1.8s to write its first status),
// then the careless and the idle operator's runs, which judge nothing
// close to a deadline, side by side: about 3 minutes of wall time.
const (
	stackableScale        = "0.02"
	stackableLoadScale    = "0.005"
	stackableLoadReaction = "stackable=2m"
	stackableLoad         = "stackable-load"
)

// stackableBuiltins are seed 004's built-in scenarios but the load.
func stackableBuiltins(t *testing.T) []string {
	t.Helper()
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sc := range all {
		if sc.Mechanism == "stackable" && sc.Name != stackableLoad {
			out = append(out, sc.Name)
		}
	}
	if len(out) < 10 {
		t.Fatalf("%d stackable built-ins besides the load, want 10 or more: %v", len(out), out)
	}
	return out
}

func TestProcessStackableCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := filepath.Join(t.TempDir(), "stackableoperator")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/stackableoperator/cmd/stackableoperator").CombinedOutput(); err != nil {
		t.Fatalf("building the example stackable operator: %v\n%s", err, out)
	}
	subject := "stackable.operator=exec:" + bin
	names := stackableBuiltins(t)
	args := []string{"run", "--time-scale", stackableScale, "--subject", subject}
	for _, n := range names {
		args = append(args, "--scenario", n)
	}
	certifyStackable(t, names, args...)
	certifyStackable(t, []string{stackableLoad}, "run", "--time-scale", stackableLoadScale,
		"--reaction-bound", stackableLoadReaction, "--subject", subject, "--scenario", stackableLoad)
	t.Run("careless and idle", func(t *testing.T) {
		t.Run("careless", func(t *testing.T) {
			t.Parallel()
			stackableCareless(t, bin)
		})
		t.Run("idle", func(t *testing.T) {
			t.Parallel()
			stackableDoNothing(t)
		})
	})
	noProcess(t, bin)
}

// certifyStackable runs opcert with args (a run of the scenarios names)
// and wants every run passed and judged: exit 0, no NOT JUDGED, the
// table's rules judged and passed, the status and workloads written by
// the operator's process, and opcert analyze of its timelines agreeing.
func certifyStackable(t *testing.T, names []string, args ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report")
	r := opcert(t, nil, append(args, "--out", out)...)
	if r.code != 0 {
		t.Errorf("the example operator: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := readReport(t, out)
	var got []string
	for _, run := range rep.Runs {
		got = append(got, run.Scenario)
		if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
			t.Errorf("%s: error %q, stopped %q, not judged %q", run.Scenario, run.Error, run.Stopped, run.NotJudged)
		}
		judged := map[string]reports.Status{}
		for _, c := range run.Cases {
			judged[c.Rule] = c.Status
			if c.Status == reports.Fail {
				t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
			}
		}
		// Every scenario moves the table: the rows had something to judge.
		for _, id := range []string{"STACKABLE-001", "STACKABLE-004", "STACKABLE-007"} {
			if judged[id] != reports.Pass {
				t.Errorf("%s: %s is %q, want pass", run.Scenario, id, judged[id])
			}
		}
		if run.Scenario != stackableLoad && judged["EXPECT"] != reports.Pass {
			t.Errorf("%s: EXPECT is %q, want pass", run.Scenario, judged["EXPECT"])
		}
		// The SampleClusters' status and the workloads are the process's,
		// as the API server's audit names the user of each write.
		writers := map[string]bool{}
		for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
			workload := e.Object.Group == "apps" && e.Verb == "create"
			if e.IsWrite() && (e.Object.Kind == "SampleCluster" && e.Verb == "update-status" || workload) {
				kind := e.Object.Kind
				if workload {
					kind = "workload"
				}
				writers[e.Actor+" "+e.Role+" "+kind] = true
			}
		}
		if want := []string{"operator operator SampleCluster", "operator operator workload"}; !slices.Equal(sortedKeys(writers), want) {
			t.Errorf("%s: status and workload writers %v, want %v", run.Scenario, sortedKeys(writers), want)
		}
		if len(run.Processes) != 1 {
			t.Fatalf("%s: %d processes, want 1", run.Scenario, len(run.Processes))
		}
		p := run.Processes[0]
		// The example stops on SIGTERM at the end of a run, as opcert asks.
		want := []string{stoppedAtEnd}
		if run.Scenario == "stackable-operator-restart" {
			want = append([]string{killedByStep}, want...)
		}
		if !endedAs(p.Endings, want) {
			t.Errorf("%s: %s ended %q, want %q", run.Scenario, p.Name, p.Endings, want)
		}
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s: the operator's output %s: %v", run.Scenario, p.Log, err)
		}
	}
	if !slices.Equal(got, names) {
		t.Errorf("runs %v, want %v", got, names)
	}
	// Its timelines, analyzed (as they stream past), give its verdicts.
	analyzeAgrees(t, out, r.code)
}

// stackableCareless: the example with --ignore-unknown calls a cluster
// whose pod's phase is Unknown Available False, which STACKABLE-001
// fails.
func stackableCareless(t *testing.T, bin string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "careless")
	r := opcert(t, nil, "run", "--time-scale", stackableScale, "--scenario", "stackable-pod-unknown", "--out", out,
		"--subject", "stackable.operator=exec:"+bin+" --ignore-unknown")
	if r.code != 1 {
		t.Errorf("the careless operator: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var failed []string
	for _, c := range readReport(t, out).Runs[0].Cases {
		if c.Status == reports.Fail {
			failed = append(failed, c.Rule)
		}
	}
	if !slices.Contains(failed, "STACKABLE-001") {
		t.Errorf("the careless operator failed %v, want STACKABLE-001 among them", failed)
	}
}

// stackableDoNothing: an operator that runs and never writes passes
// nothing.
func stackableDoNothing(t *testing.T) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "idle")
	r := opcert(t, nil, "run", "--time-scale", stackableScale, "--scenario", "stackable-steady", "--out", out,
		"--subject", "stackable.operator=exec:sleep 600")
	if r.code != 1 && r.code != 4 {
		t.Errorf("an operator that does nothing: exit %d, want 1 or 4\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range readReport(t, out).Runs[0].Cases {
		if c.Status == reports.Pass {
			t.Errorf("an operator that does nothing passed %s: %s", c.Rule, c.Message)
		}
	}
}
