package stackable_test

import (
	"slices"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode for seed 004: the example stackable operator
// (examples/stackableoperator, plain client-go, nothing of opcert), built
// here, plays the operator of every SampleCluster of each built-in
// against opcert's API server in real time, with no argument: it reads
// KUBECONFIG and OPCERT_NAMESPACES; sim/workload plays the pods on the
// wall clock.
//
// Time scales (README.md, "Process mode"): the rules and the expectations
// allow the scaled reaction bound plus conformance.RealtimeTolerance (1s,
// not scaled), so a scenario's quiet stretches must outlast that slack in
// wall time: stackable-operator-restart's last 2m after the restart is
// 1.2s at 0.01, under the 1.3s slack (nothing judged), 2.4s at 0.02
// (slack 1.6s). stackable-load's 2h plays at 0.005 (36s) with a reaction
// bound of 2m (0.6s, slack 1.6s): its 20 clusters start with the
// process, whose first 40 API calls take about a second on a busy
// machine, more than 30s at 0.005 and the tolerance. The built-ins play
// one after the other (side by side, on two cores other work shares, a
// process took 1.8s to write its first status), then the careless and
// the idle operator's runs, which judge nothing close to a deadline, side
// by side: about 3 minutes of wall time.
const (
	processScale     = 0.02
	loadScale        = 0.005
	loadReaction     = 2 * time.Minute
	loadScenario     = "stackable-load"
	restartScenario  = "stackable-operator-restart"
	minimumBuiltins  = 10
	operatorExamples = "../../examples/stackableoperator/cmd/stackableoperator"
)

func TestProcessModeCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, operatorExamples)
	var names []string
	for _, sc := range conformancetest.Builtins(stackable.Name) {
		if sc.Name != loadScenario {
			names = append(names, sc.Name)
		}
	}
	if len(names) < minimumBuiltins {
		t.Fatalf("%d stackable built-ins besides the load, want %d or more: %v", len(names), minimumBuiltins, names)
	}
	seed := stackable.Mechanism(stackable.DefaultConfig())
	for _, name := range names {
		run, writers := playProcess(t, seed, name, "exec:"+bin, processScale)
		certify(t, run, writers)
	}
	run, writers := playProcess(t, seed.(conformance.Reactive).WithReaction(loadReaction), loadScenario, "exec:"+bin, loadScale)
	certify(t, run, writers)
	t.Run("careless and idle", func(t *testing.T) {
		t.Run("careless", func(t *testing.T) {
			t.Parallel()
			// With --ignore-unknown it calls a cluster whose pod's phase is
			// Unknown Available False, which STACKABLE-001 fails.
			run, _ := playProcess(t, seed, "stackable-pod-unknown", "exec:"+bin+" --ignore-unknown", processScale)
			if c, ok := conformancetest.Case(run, "STACKABLE-001"); !ok || c.Status != reports.Fail {
				t.Errorf("the careless operator: STACKABLE-001 is %+v, want failed", c)
			}
		})
		t.Run("idle", func(t *testing.T) {
			t.Parallel()
			// An operator that runs and never writes passes nothing.
			run, _ := playProcess(t, seed, "stackable-steady", "exec:sleep 600", processScale)
			for _, c := range run.Cases {
				if c.Status == reports.Pass {
					t.Errorf("an operator that does nothing passed %s: %s", c.Rule, c.Message)
				}
			}
		})
	})
}

// playProcess plays the built-in name with the operator role played by
// subject, an executable, at a time scale, as opcert run does, and says
// who wrote the SampleClusters' status and created the workloads (actor,
// role, kind), sorted.
func playProcess(t *testing.T, m conformance.Mechanism, name, subject string, scale float64) (reports.Run, []string) {
	t.Helper()
	run, tl := conformancetest.PlayProcess(t, api, prefix(), m, name, map[string]string{stackable.RoleOperator: subject}, scale)
	return run, conformancetest.Writers(tl, func(e timeline.Event) string {
		switch {
		case e.Object.Kind == "SampleCluster" && e.Verb == "update-status":
			return e.Actor + " " + e.Role + " SampleCluster"
		case e.Object.Group == "apps" && e.Verb == "create":
			return e.Actor + " " + e.Role + " workload"
		}
		return ""
	})
}

// certify wants the run passed and judged: no NOT JUDGED, the table's
// rules judged and passed, the status and workloads written by the
// operator's process (as the API server's audit names the user of each
// write), and the process ended as opcert ended it.
func certify(t *testing.T, run reports.Run, writers []string) {
	t.Helper()
	// Every scenario moves the table: the rows had something to judge.
	passed := []string{"STACKABLE-001", "STACKABLE-004", "STACKABLE-007"}
	if run.Scenario != loadScenario {
		passed = append(passed, "EXPECT")
	}
	conformancetest.Certified(t, run, passed...)
	if want := []string{"operator operator SampleCluster", "operator operator workload"}; !slices.Equal(writers, want) {
		t.Errorf("%s: status and workload writers %v, want %v", run.Scenario, writers, want)
	}
	if len(run.Processes) != 1 {
		t.Fatalf("%s: %d processes, want 1", run.Scenario, len(run.Processes))
	}
	// The example stops on SIGTERM at the end of a run, as opcert asks.
	want := []string{conformancetest.StoppedAtEnd}
	if run.Scenario == restartScenario {
		want = append([]string{conformancetest.KilledByStep}, want...)
	}
	if p := run.Processes[0]; !conformancetest.EndedAs(p.Endings, want...) {
		t.Errorf("%s: %s ended %q, want %q", run.Scenario, p.Name, p.Endings, want)
	}
	conformancetest.Logged(t, run, "")
}
