package olm_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Process mode for seed 002's aggregator: the example status probe
// operator (examples/olmaggregator, written from the seed alone, nothing
// of opcert's), built here, plays the aggregator of built-ins in which it
// owes the Probe, against opcert's API server in real time, with the
// reference gate and the scenario's steps as the operator;
// olm-aggregator-restart kills it and starts it afresh. An aggregator
// that runs and never writes must not pass (olm-no-crs, where it owes
// the Probe).
//
// The runs go one after the other: the fixtures' CRDs, whose annotations
// each run rewrites, are shared by the runs of an API server. The time
// scale is 0.05 (the reaction bound 1.5s, plus
// conformance.RealtimeTolerance, 1s: the example reacts to a watch event
// within milliseconds), but 0.1 for olm-aggregator-restart, whose
// restarted process must start, list and write within the bound (3s plus
// 1s: a process starts within a second or two on a loaded machine); an
// idle aggregator fails at any scale, 0.02 here. 75s of wall time in all.
const (
	aggregatorExample = "../../examples/olmaggregator"
	aggregatorCommand = " --name {name} --namespace {namespace} --namespaces {namespaces} --crds {crds} --reading {reading}"
)

func TestProcessModeCertifiesTheExampleAggregator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := filepath.Join(t.TempDir(), "olmaggregator")
	if out, err := exec.Command("go", "build", "-o", bin, aggregatorExample).CombinedOutput(); err != nil {
		t.Fatalf("building the example aggregator: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"olm-seed-example", 0.05}, {"olm-aggregator-restart", 0.1}, {"olm-annotations-change", 0.05}} {
		t.Run(tc.name, func(t *testing.T) {
			run, writers := playAggregator(t, tc.name, "exec:"+bin+aggregatorCommand, tc.scale)
			if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
				t.Errorf("error %q, stopped %q, not judged %q", run.Error, run.Stopped, run.NotJudged)
			}
			judged := map[string]reports.Status{}
			for _, c := range run.Cases {
				judged[c.Rule] = c.Status
				if c.Status == reports.Fail {
					t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
				}
			}
			for _, id := range []string{"OLM-001", "OLM-002", "OLM-003", "EXPECT"} {
				if judged[id] != reports.Pass {
					t.Errorf("%s is %q, want pass", id, judged[id])
				}
			}
			if !slices.Equal(writers, []string{"aggregator aggregator"}) {
				t.Errorf("the Probe's writers but the scenario's %v, want the aggregator's process only", writers)
			}
			if len(run.Processes) != 1 || run.Processes[0].Role != olm.RoleAggregator {
				t.Errorf("processes %+v, want the aggregator's only", run.Processes)
			}
		})
	}
	t.Run("idle", func(t *testing.T) {
		run, _ := playAggregator(t, "olm-no-crs", "exec:/bin/sleep 600", 0.02)
		failed := run.Error != ""
		for _, c := range run.Cases {
			failed = failed || c.Status == reports.Fail
		}
		if !failed && len(run.NotJudged) == 0 {
			t.Errorf("an aggregator that does nothing passed: %+v", run.Cases)
		}
	})
}

// playAggregator plays the built-in name at scale with the aggregator role
// played by subject, an executable, as opcert run does, and says who wrote the
// Probe (actor and role) besides the scenario (an editProbeSpec step).
func playAggregator(t *testing.T, name, subject string, scale float64) (reports.Run, []string) {
	t.Helper()
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	m := olm.Mechanism(olm.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{olm.RoleAggregator: subject})
	if err != nil {
		t.Fatal(err)
	}
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix(),
		Dir: t.TempDir(), Host: api, ProcessDir: t.TempDir(), TimeScale: scale})
	var writers []string
	for _, e := range tl.Events() {
		if w := e.Actor + " " + e.Role; e.IsWrite() && e.Object.Kind == "Probe" && e.Role != "scenario" && !slices.Contains(writers, w) {
			writers = append(writers, w)
		}
	}
	slices.Sort(writers)
	return run, writers
}
