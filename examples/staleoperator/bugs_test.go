package staleoperator_test

import (
	"fmt"
	"testing"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/staleoperator"
	"github.com/opcert/opcert/reports"
)

// No built-in scenario tells a planted bug from the operator without one:
// on every built-in certify plays by default, and on the restart out of
// phase, each bugged operator gets the verdict the faithful one gets, rule
// by rule (every STALE rule of the operator role passes), with the same
// answer times. Only a perturbation finds them (bug-*.yaml, TestPerturbationsFindTheBugs).
func TestBugsPassTheBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	verdicts := func(bug string) []string {
		opts := certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
			New: operator(staleoperator.Options{Bug: bug}), Config: server.Config}
		builtins, err := certify.Run(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Files = []string{"testdata/restart-out-of-phase.yaml"}
		file, err := certify.Run(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, run := range append(builtins.Runs, file.Runs...) {
			for _, c := range run.Cases {
				out = append(out, fmt.Sprintf("%s %s %s %s", run.Scenario, c.Rule, c.Status, measures(c.Measures)))
				if c.Status == reports.Fail {
					t.Errorf("bug %q: %s: %s failed: %s", bug, run.Scenario, c.Rule, c.Message)
				}
			}
		}
		return out
	}
	faithful := verdicts("")
	for _, b := range staleoperator.Bugs {
		got := verdicts(b.Name)
		if fmt.Sprint(got) != fmt.Sprint(faithful) {
			t.Errorf("bug %q is told apart without a perturbation:\n got %q\nwant %q", b.Name, got, faithful)
		}
	}
}

// measures is a case's answer times, briefly.
func measures(ms []reports.Measure) string {
	out := ""
	for _, m := range ms {
		out += fmt.Sprintf("[%s n=%d max=%s]", m.Name, m.Count, m.Max)
	}
	return out
}
