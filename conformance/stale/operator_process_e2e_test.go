package stale_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/conformance/stale/staletest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode for seed 000's operator (process/doc.go): the
// example operator (examples/staleoperator, nothing of opcert's), built
// here, plays the operator role against opcert's API server in real time,
// at a time scale of 0.01 (a 10m challenge comes after 6s), as opcert run
// plays it. The runs wait on wall time by nature: a few minutes at most in
// all.
const operatorScale = 0.01

// exampleOperator builds examples/staleoperator's binary once per test.
func exampleOperator(t *testing.T) string {
	return conformancetest.Build(t, "../../examples/staleoperator/cmd/staleoperator")
}

// playOperator plays a scenario (a built-in's name or a file) on w with
// the operator role played by subject, an executable, at operatorScale.
func playOperator(t *testing.T, w *apiserver.Server, scenario, subject string) (reports.Run, []timeline.Event) {
	t.Helper()
	run, tl := conformancetest.PlayProcess(t, w, prefix(), stale.Mechanism(stale.DefaultConfig()), scenario,
		map[string]string{stale.RoleOperator: subject}, operatorScale)
	return run, tl.Events()
}

// The example operator is certified on every stale built-in it can play
// in process mode, at a time scale of 0.01: 10 minutes are 6s, six times
// the real-time tolerance (1s), while the reaction bound (30s) stays. The
// built-ins play in three groups side by side, each on an API server of
// its own as three `opcert run` processes would (the first on the
// package's), a do-nothing operator (sleep) on a fourth: at most 66s of scenario time each, 1m40s of wall
// time on a loaded machine (beside the careless example's run). Left out:
//   - stale-api-errors: apiErrors steps act in virtual time only;
//   - stale-fleet-24h: 35 operators for 24 hours is 14.4 minutes at 0.01,
//     and a scale small enough for CI brings the 10-minute wait to 1.2s,
//     near the tolerance; the example passes it in process mode at 0.01,
//     run by hand (README.md, "Process mode and time scales").
func TestProcessModeCertifiesTheExampleOnEveryBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	t.Parallel() // beside the careless example's run: both mostly wait
	bin := exampleOperator(t)
	var plays []*scenarios.Scenario
	for _, sc := range conformancetest.Builtins("stale") {
		if sc.Name != "stale-fleet-24h" && !slices.ContainsFunc(sc.Steps, func(s scenarios.Step) bool { return s.APIErrors != nil }) {
			plays = append(plays, sc)
		}
	}
	if len(plays) < 8 {
		t.Fatalf("%d stale built-ins to play, want 8 at least", len(plays))
	}
	// Longest first, each to the group with the least scenario time.
	slices.SortFunc(plays, func(a, b *scenarios.Scenario) int { return cmp.Compare(b.Duration.Duration, a.Duration.Duration) })
	groups := make([][]string, 3)
	load := make([]time.Duration, len(groups))
	for _, sc := range plays {
		i := slices.Index(load, slices.Min(load))
		groups[i], load[i] = append(groups[i], sc.Name), load[i]+sc.Duration.Duration
	}
	example := "exec:" + bin + " --name {name} --operand {operand} --resync 1s"
	idle := []string{"stale-operator-death"}
	runs := make([][]reports.Run, len(groups)+1)
	timelines := make([][][]timeline.Event, len(groups)+1)
	var wg sync.WaitGroup
	start := time.Now()
	for i, names := range append(groups, idle) {
		subject := example
		if i == len(groups) {
			subject = "exec:/bin/sleep 3600"
		}
		wg.Go(func() {
			w := api
			if i > 0 {
				var err error
				if w, err = apiserver.Start(context.Background(), apiserver.Options{}); err != nil {
					t.Error(err)
					return
				}
				defer w.Stop()
			}
			for _, name := range names {
				run, events := playOperator(t, w, name, subject)
				runs[i], timelines[i] = append(runs[i], run), append(timelines[i], events)
			}
		})
	}
	wg.Wait()
	t.Logf("%d groups side by side: %s of wall time", len(runs), time.Since(start).Round(time.Second))
	for i, g := range groups {
		if len(runs[i]) != len(g) {
			t.Fatalf("%v: %d runs", g, len(runs[i]))
		}
		for j, run := range runs[i] {
			checkExampleRun(t, run, timelines[i][j])
		}
	}
	// An operator that never writes passes nothing: not judged, or an
	// expectation failed. Its command does not name {operand}, and the run
	// says the scenario's conditions were not given to it.
	if len(runs[len(groups)]) != 1 {
		t.Fatalf("the do-nothing operator: %d runs", len(runs[len(groups)]))
	}
	run := runs[len(groups)][0]
	if run.Error != "" || len(run.NotJudged) == 0 && !slices.ContainsFunc(run.Cases, failed) {
		t.Errorf("a do-nothing operator: error %q, not judged %q, cases %+v; want NOT JUDGED or a failure", run.Error, run.NotJudged, run.Cases)
	} else if c, _ := conformancetest.Case(run, "EXPECT"); !strings.Contains(c.Message, "{operand}") {
		t.Errorf("a command without {operand}: EXPECT says %q, want a note that the scenario's conditions were not given", c.Message)
	}
	conformancetest.Gone(t, bin)
}

func failed(c reports.Case) bool { return c.Status == reports.Fail }

// exampleJudged are the rules each built-in gives the example operator
// something to be judged on, besides STALE-001 to STALE-003 (a challenge
// in each): an answer while running (STALE-007, STALE-008), a mark of a
// dead or hung operator (STALE-004, STALE-005). Where the operator dies
// within a second of its first write (stale-failing-condition), whether a
// challenge comes before its death depends on the machine: not required.
var exampleJudged = map[string][]string{
	"stale-healthy-answer":        {"STALE-007", "STALE-008"},
	"stale-operator-death":        {"STALE-004", "STALE-005"},
	"stale-restart-after-unknown": {"STALE-004", "STALE-005"},
	"stale-hang":                  {"STALE-004", "STALE-005"},
	"stale-condition-moves":       {"STALE-007", "STALE-008"},
	"stale-operator-slows-down":   {"STALE-007", "STALE-008"},
	"stale-failing-condition":     {"STALE-004", "STALE-005"},
	"stale-detector-returns":      {"STALE-004", "STALE-005", "STALE-007", "STALE-008"},
}

// exampleEndings are how the one operator process of a run ended.
var exampleEndings = map[string][]string{
	"stale-healthy-answer": {conformancetest.StoppedAtEnd},
	"stale-operator-death": {conformancetest.KilledByStep},
}

// checkExampleRun checks one run of the example operator: judged, nothing
// failed, the rules its scenario exercises passed, and its writes put down
// to its own processes.
func checkExampleRun(t *testing.T, run reports.Run, events []timeline.Event) {
	t.Helper()
	conformancetest.Certified(t, run, append([]string{"STALE-001", "STALE-002", "STALE-003"}, exampleJudged[run.Scenario]...)...)
	if c, _ := conformancetest.Case(run, "EXPECT"); strings.Contains(c.Message, "{operand}") {
		t.Errorf("%s: the command names {operand}, yet EXPECT says %q", run.Scenario, c.Message)
	}
	if run.TimeScale != operatorScale || len(run.Processes) == 0 {
		t.Errorf("%s: time scale %v, %d processes", run.Scenario, run.TimeScale, len(run.Processes))
	}
	conformancetest.Logged(t, run, "")
	// A run's end stops a process gracefully; a killOperator step kills it.
	if want, ok := exampleEndings[run.Scenario]; ok && (len(run.Processes) != 1 || !conformancetest.EndedAs(run.Processes[0].Endings, want...)) {
		t.Errorf("%s: processes %+v, want one that ended %q", run.Scenario, run.Processes, want)
	}
	// The API server's audit puts each write down to the process whose
	// user made it, the only attribution process mode makes: never to
	// another operator's. A write the audit did not name within its wait
	// (2s, a heavily loaded machine) keeps its field manager's name, still
	// the operator's role.
	attributed := 0
	for _, e := range events {
		if !e.IsWrite() || e.Object.Kind != "ClusterOperator" || e.Actor == stale.RoleDetector {
			continue
		}
		switch {
		case e.Actor == "operator/"+e.Object.Name:
			attributed++
		case strings.HasPrefix(e.Actor, "operator/") || e.Role != stale.RoleOperator:
			t.Errorf("%s: ClusterOperator/%s written by %s (%s)", run.Scenario, e.Object.Name, e.Actor, e.Role)
		default:
			t.Logf("%s: ClusterOperator/%s written by %s, not named by the audit in time", run.Scenario, e.Object.Name, e.Actor)
		}
	}
	if attributed == 0 {
		t.Errorf("%s: no ClusterOperator write put down to its operator's process", run.Scenario)
	}
}

func TestProcessModeFailsTheCarelessExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	t.Parallel() // beside the example's built-ins: both mostly wait
	bin := exampleOperator(t)
	sc := staletest.DNSKilled(t, "process-mode", "80m") // dns killed 3s in
	// It looks every 40s of wall time, so it answers a challenge 6s in
	// about 34s later: over the 30s budget, which is not scaled.
	run, _ := playOperator(t, api, sc, "exec:"+bin+" --name {name} --careless --resync 40s")
	if run.Error != "" || !slices.ContainsFunc(run.Cases, failed) {
		t.Fatalf("the careless operator: error %q, cases %+v; want a failure", run.Error, run.Cases)
	}
	for _, c := range run.Cases {
		if c.Rule == "STALE-007" && (c.Status != reports.Fail || len(c.Evidence) == 0 || !strings.Contains(c.Message, "etcd")) {
			t.Errorf("STALE-007: %s %s (%d events of evidence), want a failure naming etcd", c.Status, c.Message, len(c.Evidence))
		}
	}
	conformancetest.Gone(t, bin)
}

// Through its proxy, process mode crashes the example operator right after
// its first write (examples/staleoperator/testdata/bug-memory.yaml): the
// faithful operator, restarted, writes its conditions and converges; the
// one that keeps "the report is owed" in memory leaves its ClusterOperator
// without conditions, which convergence fails (the STALE rules cannot:
// an object with no conditions is never challenged). At 0.05 the 30m
// scenario is 90s of wall time, long enough for convergence's two
// reaction bounds (30s, absolute) after the operator's last change; both
// play side by side, each unperturbed first.
func TestProcessModeCrashFindsTheMemoryBug(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	t.Parallel()
	bin := exampleOperator(t)
	for _, tc := range []struct {
		name, flags string
		want        reports.Status
	}{{"faithful", "", reports.Pass}, {"memory", " --bug memory", reports.Fail}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run, tl := conformancetest.PlayProcess(t, api, prefix(), stale.Mechanism(stale.DefaultConfig()),
				"../../examples/staleoperator/testdata/bug-memory.yaml",
				map[string]string{stale.RoleOperator: "exec:" + bin + " --name {name}" + tc.flags}, 0.05)
			i := slices.IndexFunc(run.Cases, func(c reports.Case) bool { return c.Rule == "CONVERGE" })
			if run.Error != "" || i < 0 || run.Cases[i].Status != tc.want {
				t.Fatalf("error %q, cases %+v; want CONVERGE %s", run.Error, run.Cases, tc.want)
			}
			crashed := slices.ContainsFunc(tl.Events(), func(e timeline.Event) bool {
				return e.Verb == timeline.VerbKill && e.Detail == timeline.PerturbationDetail+"crash after write 1"
			})
			if !crashed {
				t.Errorf("no crash on the timeline")
			}
		})
	}
}
