package main

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
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
// operator that does nothing is NOT JUDGED, never a pass. The groups, and
// the two runs of the careless and the idle operator one after the other,
// play side by side, each on its API server (go test's -parallel, the
// machine's cores, would hold them back): about two minutes of wall time.
func TestProcessCOCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := buildComponentOperator(t, t.TempDir())
	t.Cleanup(func() { noProcess(t, bin) })
	type play struct {
		scale, subject string
		scenarios      []string
		out            string
		r              result
		err            error
	}
	var plays []*play
	for _, names := range coBuiltins(t) {
		plays = append(plays, &play{scale: coTimeScale, subject: bin, scenarios: names})
	}
	// The careless variant reports 4.0.1 once the specs ask for it, while
	// old pods run: plain at any scale where the rollout never ends
	// (co-operand-stuck; in co-clean-upgrade it ends in about a second at
	// 0.01, and a busy machine's lag hid it). An operator that never
	// writes proves nothing.
	careless := &play{scale: "0.01", subject: bin + " --careless", scenarios: []string{"co-operand-stuck"}}
	idle := &play{scale: "0.01", subject: "/bin/sleep 600", scenarios: []string{"co-ordering-trap"}}
	start := func(p *play) {
		args := []string{"run", "--time-scale", p.scale, "--out", p.out, "--subject", "clusteroperator.operator=exec:" + p.subject}
		for _, n := range p.scenarios {
			args = append(args, "--scenario", n)
		}
		p.r, p.err = runOpcert(args...)
	}
	var wg sync.WaitGroup
	for _, p := range append(plays, careless, idle) {
		p.out = filepath.Join(t.TempDir(), "report")
	}
	for _, p := range plays {
		wg.Go(func() { start(p) })
	}
	wg.Go(func() {
		start(careless)
		start(idle)
	})
	wg.Wait()
	for _, p := range append(plays, careless, idle) {
		if p.err != nil || p.r.code == exitUsage || p.r.code == exitEnv {
			t.Fatalf("%s on %v: exit %d, %v\n%s\n%s", p.subject, p.scenarios, p.r.code, p.err, p.r.stdout, p.r.stderr)
		}
	}
	for _, p := range plays {
		if p.r.code != 0 {
			t.Errorf("%v: exit %d, want 0\n%s\n%s", p.scenarios, p.r.code, p.r.stdout, p.r.stderr)
		}
		rep := readReport(t, p.out)
		if len(rep.Runs) != len(p.scenarios) {
			t.Fatalf("%d runs, want %d", len(rep.Runs), len(p.scenarios))
		}
		for _, run := range rep.Runs {
			certified(t, run, p.out)
		}
	}
	if c := caseOf(t, readReport(t, careless.out).Runs[0], "CO-002"); careless.r.code != 1 || c.Status != reports.Fail {
		t.Errorf("the careless variant: exit %d, CO-002 %s (%s); want exit 1, CO-002 failed\n%s", careless.r.code, c.Status, c.Message, careless.r.stdout)
	}
	// NOT JUDGED, and the expectations of what it should have written fail.
	if run := readReport(t, idle.out).Runs[0]; idle.r.code == 0 || len(run.NotJudged) == 0 {
		t.Errorf("an operator that does nothing: exit %d, not judged %q; want a failing exit, NOT JUDGED\n%s", idle.r.code, run.NotJudged, idle.r.stdout)
	}
}

// runOpcert is opcert for a goroutine other than the test's: the error
// is returned, not fatal.
func runOpcert(args ...string) (result, error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return result{out.String(), errb.String(), exit.ExitCode()}, nil
	}
	return result{out.String(), errb.String(), 0}, err
}

// certified checks one run of the example: judged, nothing failed, each
// ClusterOperator written by its own process alone, each process's output
// kept and its end a graceful one.
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
	// Killed by the steps and the upgrades' replacements, each process
	// running at the end stops on SIGTERM, as a manager does.
	for _, p := range run.Processes {
		want := append(slices.Repeat([]string{killedByStep}, max(len(p.Endings)-1, 0)), stoppedAtEnd)
		if !endedAs(p.Endings, want) {
			t.Errorf("%s: %s ended %q, want %q", run.Scenario, p.Name, p.Endings, want)
		}
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s: %s's output %s: %v", run.Scenario, p.Name, p.Log, err)
		}
	}
}
