package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Process mode for seed 001: the example component operator
// (examples/componentoperator, written from the seed, nothing of opcert's
// in it), built here, plays each component's operator against opcert's
// API server in real time, a process per component started when the
// version operator applies its Deployment and replaced when an upgrade
// changes it, on every built-in scenario of the mechanism that can play
// in real time.

// coTimeScale is the time scale the example is certified at: 0.02 plays
// the built-ins' 4h20m in 5m12s, in three groups side by side. At 0.01 a
// scenario's two minutes are 1.2s, no more than an operator process takes
// to start and make its first write on a busy machine: co-clean-upgrade
// asked its upgrade before the third component was installed, and
// co-upgradeable-blocks before etcd had seen the administrator's blocker.
const coTimeScale = "0.02"

// coBuiltins are the built-in clusteroperator scenarios that play in real
// time (not those with apiErrors steps, injected in virtual time only),
// in three groups of about the same length, longest first.
func coBuiltins(t *testing.T) [][]string {
	t.Helper()
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var real []*scenarios.Scenario
	for _, sc := range all {
		if sc.Mechanism == "clusteroperator" && !slices.ContainsFunc(sc.Steps, func(st scenarios.Step) bool { return st.APIErrors != nil }) {
			real = append(real, sc)
		}
	}
	if len(real) < 9 {
		t.Fatalf("%d built-ins play in real time, want the 9 of seed 001 at least", len(real))
	}
	slices.SortStableFunc(real, func(a, b *scenarios.Scenario) int { return cmp.Compare(b.Duration.Duration, a.Duration.Duration) })
	groups, length := make([][]string, 3), make([]time.Duration, 3)
	for _, sc := range real {
		i := slices.Index(length, slices.Min(length))
		groups[i] = append(groups[i], sc.Name)
		length[i] += sc.Duration.Duration
	}
	return groups
}

// buildComponentOperator builds the example operator into dir.
func buildComponentOperator(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "componentoperator")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/componentoperator/cmd/componentoperator").CombinedOutput(); err != nil {
		t.Fatalf("building the example operator: %v\n%s", err, out)
	}
	return bin
}

// The example passes every built-in: exit 0, every run judged and no rule
// nor expectation failed. Its careless variant fails CO-002, and an
// operator that does nothing is NOT JUDGED, never a pass. The groups run
// side by side, each on its API server: about two minutes of wall time.
func TestProcessCOCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := buildComponentOperator(t, t.TempDir())
	t.Cleanup(func() { noProcess(t, bin) })
	run := func(t *testing.T, scale, subject string, names ...string) (result, reports.Report, string) {
		out := filepath.Join(t.TempDir(), "report")
		args := []string{"run", "--time-scale", scale, "--out", out, "--subject", "clusteroperator.operator=exec:" + subject}
		for _, n := range names {
			args = append(args, "--scenario", n)
		}
		r := opcert(t, nil, args...)
		if r.code == exitUsage || r.code == 3 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return r, readReport(t, out), out
	}
	for i, names := range coBuiltins(t) {
		t.Run("built-ins "+strings.Join(names, ","), func(t *testing.T) {
			t.Parallel()
			r, rep, out := run(t, coTimeScale, bin, names...)
			if r.code != 0 {
				t.Errorf("group %d: exit %d, want 0\n%s\n%s", i, r.code, r.stdout, r.stderr)
			}
			if len(rep.Runs) != len(names) {
				t.Fatalf("%d runs, want %d", len(rep.Runs), len(names))
			}
			for _, run := range rep.Runs {
				certified(t, run, out)
			}
		})
	}
	t.Run("careless", func(t *testing.T) {
		t.Parallel()
		// It reports 4.0.1 once the specs ask for it, while old pods run:
		// plain at any scale.
		r, rep, _ := run(t, "0.01", bin+" --careless", "co-clean-upgrade")
		if r.code != 1 {
			t.Errorf("exit %d, want 1\n%s", r.code, r.stdout)
		}
		if c := caseOf(t, rep.Runs[0], "CO-002"); c.Status != reports.Fail {
			t.Errorf("CO-002 is %s (%s), want fail", c.Status, c.Message)
		}
		// An operator that never writes proves nothing: NOT JUDGED, and
		// the expectations of what it should have written fail.
		r, rep, _ = run(t, "0.01", "/bin/sleep 600", "co-ordering-trap")
		if r.code == 0 || len(rep.Runs[0].NotJudged) == 0 {
			t.Errorf("an operator that does nothing: exit %d, not judged %q; want a failing exit, NOT JUDGED\n%s", r.code, rep.Runs[0].NotJudged, r.stdout)
		}
	})
}

// certified checks one run of the example: judged, nothing failed, each
// ClusterOperator written by its own process alone, each process's output
// kept.
func certified(t *testing.T, run reports.Run, out string) {
	t.Helper()
	if run.Error != "" || len(run.NotJudged) > 0 || run.Stopped != "" {
		t.Errorf("%s: error %q, not judged %q, stopped %q", run.Scenario, run.Error, run.NotJudged, run.Stopped)
	}
	for _, c := range run.Cases {
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
		}
	}
	if strconv.FormatFloat(run.TimeScale, 'g', -1, 64) != coTimeScale || len(run.Processes) == 0 {
		t.Errorf("%s: time scale %v, %d processes", run.Scenario, run.TimeScale, len(run.Processes))
	}
	for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
		if e.IsWrite() && e.Object.Kind == "ClusterOperator" && e.Role == "operator" && e.Actor != "operator/"+e.Object.Name {
			t.Errorf("%s: %s wrote ClusterOperator %s", run.Scenario, e.Actor, e.Object.Name)
		}
	}
	for _, p := range run.Processes {
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s: %s's output %s: %v", run.Scenario, p.Name, p.Log, err)
		}
	}
}
