package stale_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Process mode for seed 000's detector: the example detector
// (examples/staledetector, written from the seed alone, nothing of
// opcert's), built here, plays the detector of built-ins that challenge
// and mark, against opcert's API server at --time-scale 0.01 (the waits
// are 6s, six times the real-time tolerance), opcert's reference playing
// the operators; stale-detector-returns kills and restarts it twice. A
// detector that runs and never writes must not pass. The runs go side by
// side: the longest, 32 minutes of the scenario, is 19s of wall time.
const (
	detectorScale    = 0.01
	detectorExamples = "../../examples/staledetector"
)

func TestProcessModeCertifiesTheExampleDetector(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := filepath.Join(t.TempDir(), "staledetector")
	if out, err := exec.Command("go", "build", "-o", bin, detectorExamples).CombinedOutput(); err != nil {
		t.Fatalf("building the example detector: %v\n%s", err, out)
	}
	command := "exec:" + bin + " --prefix {prefix} --challenge-after {challengeAfter} --unknown-after {unknownAfter} --silence {silence}"
	for _, name := range []string{"stale-operator-death", "stale-restart-after-unknown", "stale-detector-returns"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run, writers := playDetector(t, name, command)
			certifyDetector(t, run, writers)
		})
	}
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		run, _ := playDetector(t, "stale-operator-death", "exec:/bin/sleep 600")
		failed := run.Error != ""
		for _, c := range run.Cases {
			failed = failed || c.Status == reports.Fail
		}
		if !failed && len(run.NotJudged) == 0 {
			t.Errorf("a detector that does nothing passed: %+v", run.Cases)
		}
	})
}

// playDetector plays the built-in name with the detector role played by
// subject, an executable, as opcert run does, and says who wrote the
// ClusterOperators (actor and role).
func playDetector(t *testing.T, name, subject string) (reports.Run, []string) {
	t.Helper()
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	m := stale.Mechanism(stale.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{stale.RoleDetector: subject})
	if err != nil {
		t.Fatal(err)
	}
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix(),
		Dir: t.TempDir(), Host: api, ProcessDir: t.TempDir(), TimeScale: detectorScale})
	var writers []string
	for _, e := range tl.Events() {
		if w := e.Actor + " " + e.Role; e.IsWrite() && e.Object.Kind == "ClusterOperator" && !slices.Contains(writers, w) {
			writers = append(writers, w)
		}
	}
	slices.Sort(writers)
	return run, writers
}

// certifyDetector wants the run passed and judged: no NOT JUDGED, the
// challenge and the mark judged and passed, the expectations held, the
// detector's writes put down to its process by the API server's audit.
func certifyDetector(t *testing.T, run reports.Run, writers []string) {
	t.Helper()
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
	for _, id := range []string{"STALE-002", "STALE-003", "STALE-004", "EXPECT"} {
		if judged[id] != reports.Pass {
			t.Errorf("%s: %s is %q, want pass", run.Scenario, id, judged[id])
		}
	}
	if !slices.Contains(writers, stale.RoleDetector+" "+stale.RoleDetector) {
		t.Errorf("%s: ClusterOperator writers %v, none the detector's", run.Scenario, writers)
	}
	if len(run.Processes) != 1 || run.Processes[0].Role != stale.RoleDetector {
		t.Errorf("%s: processes %+v, want the detector's only", run.Scenario, run.Processes)
	}
}
