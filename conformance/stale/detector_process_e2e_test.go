package stale_test

import (
	"slices"
	"testing"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode for seed 000's detector: the example detector
// (examples/staledetector, written from the seed alone, nothing of
// opcert's), built here, plays the detector of built-ins that challenge
// and mark, against opcert's API server at --time-scale 0.01 (the waits
// are 6s, six times the real-time tolerance), opcert's reference playing
// the operators; stale-detector-returns kills and restarts it twice. A
// detector that runs and never writes must not pass. The runs go side by
// side: the longest, 32 minutes of the scenario, is 19s of wall time. The
// test runs before the operator's process-mode tests, not beside them: on
// a machine already busy, their five API servers and processes delayed
// the detector's mark past the expectation's 3s.
const (
	detectorScale    = 0.01
	detectorExamples = "../../examples/staledetector"
)

func TestProcessModeCertifiesTheExampleDetector(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, detectorExamples)
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
	run, tl := conformancetest.PlayProcess(t, api, prefix(), stale.Mechanism(stale.DefaultConfig()), name,
		map[string]string{stale.RoleDetector: subject}, detectorScale)
	return run, conformancetest.Writers(tl, func(e timeline.Event) string {
		if e.Object.Kind != "ClusterOperator" {
			return ""
		}
		return e.Actor + " " + e.Role
	})
}

// certifyDetector wants the run passed and judged: no NOT JUDGED, the
// challenge and the mark judged and passed, the expectations held, the
// detector's writes put down to its process by the API server's audit.
func certifyDetector(t *testing.T, run reports.Run, writers []string) {
	t.Helper()
	conformancetest.Certified(t, run, "STALE-002", "STALE-003", "STALE-004", "EXPECT")
	if !slices.Contains(writers, stale.RoleDetector+" "+stale.RoleDetector) {
		t.Errorf("%s: ClusterOperator writers %v, none the detector's", run.Scenario, writers)
	}
	if len(run.Processes) != 1 || run.Processes[0].Role != stale.RoleDetector {
		t.Errorf("%s: processes %+v, want the detector's only", run.Scenario, run.Processes)
	}
}
