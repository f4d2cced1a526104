package main

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/reports"
)

// Process mode for seed 002's operator role: the example operator
// (examples/olmoperator, written from the seed, nothing of opcert in it),
// built here, plays the operator OLM installed against opcert's API
// server in real time, with the reference aggregator and gate: in the
// built-in olm-operator-migration through its CRs, and in the example's
// own scenario through its OperatorCondition (--channel operatorcondition),
// where it is killed and restarted. Its lying variant fails OLM-011; an
// operator that never writes is never a pass. opcert analyze of each
// run's timeline gives the run's verdicts.
//
// The time scale: 0.1 plays the scenarios' 3m30s and 3m20s in 21s and
// 20s; the reaction bound is then 3s, plus conformance.RealtimeTolerance
// (1s), and the first request comes 3s into the run: a process takes
// about a second to start and make its first write on a busy machine. The
// four runs play side by side, each on its API server.
const olmTimeScale = "0.1"

// olmOperatorCommand is the example's command line with the placeholders
// of the olm operator role.
const olmOperatorCommand = " --name {name} --namespace {namespace} --namespaces {namespaces} --crds {crds}"

func TestProcessOLMCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/olmoperator/cmd/olmoperator")
	t.Cleanup(func() { conformancetest.Gone(t, bin) })
	ocFile := "../../examples/olmoperator/testdata/oc-migration.yaml"
	type play struct {
		subject, scenario string
		out               string
		r                 result
		err               error
	}
	plays := map[string]*play{
		"crs":  {subject: bin + olmOperatorCommand, scenario: "olm-operator-migration"},
		"oc":   {subject: bin + olmOperatorCommand + " --channel operatorcondition", scenario: ocFile},
		"liar": {subject: bin + olmOperatorCommand + " --lies", scenario: "olm-operator-migration"},
		"idle": {subject: "/bin/sleep 600", scenario: "olm-operator-migration"},
	}
	var wg sync.WaitGroup
	for _, p := range plays {
		p.out = filepath.Join(t.TempDir(), "report")
		args := []string{"run", "--time-scale", olmTimeScale, "--out", p.out, "--subject", "olm.operator=exec:" + p.subject}
		if filepath.Ext(p.scenario) == ".yaml" {
			args = append(args, p.scenario)
		} else {
			args = append(args, "--scenario", p.scenario)
		}
		wg.Go(func() { p.r, p.err = runOpcert(args...) })
	}
	wg.Wait()
	for name, p := range plays {
		if p.err != nil {
			t.Fatalf("%s: %v", name, p.err)
		}
	}
	for _, name := range []string{"crs", "oc"} {
		p := plays[name]
		if p.r.code != 0 {
			t.Errorf("the example (%s): exit %d, want 0\n%s\n%s", name, p.r.code, p.r.stdout, p.r.stderr)
			continue
		}
		run := readReport(t, p.out).Runs[0]
		olmCertified(t, run, p.out)
		if c := olmCase(run, "OLM-011"); c.Status != reports.Pass {
			t.Errorf("the example (%s): OLM-011 %s: %s", name, c.Status, c.Message)
		}
		writers := map[string]bool{}
		for _, e := range readTimeline(t, filepath.Join(p.out, run.Timeline)) {
			if e.IsWrite() && e.Role == "operator" {
				writers[e.Actor+" "+e.Object.Kind] = true
			}
		}
		want := map[string][]string{"crs": {"operator Foo"}, "oc": {"operator OperatorCondition"}}[name]
		if got := sortedKeys(writers); !slices.Equal(got, want) {
			t.Errorf("the example (%s): the operator role's writes %v, want %v", name, got, want)
		}
	}
	if p := plays["liar"]; p.r.code != 1 || olmCase(readReport(t, p.out).Runs[0], "OLM-011").Status != reports.Fail {
		t.Errorf("the lying example: exit %d, want 1 with OLM-011 failed\n%s", p.r.code, p.r.stdout)
	}
	if p := plays["idle"]; p.r.code != 1 && p.r.code != 4 {
		t.Errorf("an operator that does nothing: exit %d, want 1 or 4\n%s\n%s", p.r.code, p.r.stdout, p.r.stderr)
	}
	// opcert analyze of each run's timeline gives the run's verdicts, case
	// by case, the failures and the unproven runs too.
	for name, p := range plays {
		t.Run("analyze "+name, func(t *testing.T) { analyzeAgrees(t, p.out, p.r.code) })
	}
}

// olmCertified checks one run of the example: judged, nothing failed, its
// process's output kept, killed by the steps only and stopped on SIGTERM
// at the end, as a manager does.
func olmCertified(t *testing.T, run reports.Run, out string) {
	t.Helper()
	conformancetest.Certified(t, run)
	for _, c := range run.Cases {
		if c.Status == reports.Warn {
			t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
		}
	}
	if len(run.Processes) != 1 {
		t.Fatalf("%s: %d processes, want 1", run.Scenario, len(run.Processes))
	}
	p := run.Processes[0]
	want := append(slices.Repeat([]string{conformancetest.KilledByStep}, max(len(p.Endings)-1, 0)), conformancetest.StoppedAtEnd)
	if !conformancetest.EndedAs(p.Endings, want...) {
		t.Errorf("%s: %s ended %q, want %q", run.Scenario, p.Name, p.Endings, want)
	}
	conformancetest.Logged(t, run, out)
}

// olmCase is run's case of rule, or a zero case.
func olmCase(run reports.Run, rule string) reports.Case {
	for _, c := range run.Cases {
		if c.Rule == rule {
			return c
		}
	}
	return reports.Case{}
}
