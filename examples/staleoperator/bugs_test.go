package staleoperator_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/staleoperator"
	"github.com/opcert/opcert/reports"
)

// No built-in scenario tells a planted bug from the operator without one:
// on every built-in certify plays by default, and on the restart out of
// phase, each bugged operator gets the verdict the faithful one gets, rule
// by rule (no STALE rule of the operator role fails), with the same answer
// times. Only a perturbation finds them (TestPerturbationsFindTheBugs).
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

// One perturbation finds each planted bug (testdata/bug-NAME.yaml, each
// its scenario with one perturb step), and the operator without a bug
// passes all four, every STALE rule and convergence (CONVERGE: where the
// unperturbed run ends) judged:
//   - memory: a crash right after the create leaves the ClusterOperator
//     without conditions for good (CONVERGE);
//   - edge, stale-cache: a detector restarted right after its challenge
//     challenges again at once, and the operator is told of its answer and
//     of the new challenge in one event: neither answers it (STALE-007,
//     STALE-008);
//   - conflict: 30s of 409 from the first challenge leave it expecting an
//     event that never comes: the challenge at 30m is not answered.
func TestPerturbationsFindTheBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	type found struct{ rule, message string }
	for _, c := range []struct {
		bug  string
		want []found
	}{
		{"memory", []found{{"CONVERGE", "ClusterOperator/etcd Available absent (unperturbed True)"}}},
		{"edge", []found{{"STALE-007", "challenged at +10m0s was never reset"}, {"STALE-008", "challenged at +10m0s was not reset"}}},
		{"stale-cache", []found{{"STALE-007", "challenged at +10m0s was never reset"}, {"STALE-008", "challenged at +10m0s was not reset"}}},
		{"conflict", []found{{"STALE-007", "challenged at +30m0s was never reset"}, {"STALE-008", "challenged at +30m0s was not reset"}}},
	} {
		file := "testdata/bug-" + c.bug + ".yaml"
		for _, bug := range []string{c.bug, ""} {
			rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
				New: operator(staleoperator.Options{Bug: bug}), Config: server.Config, Files: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			run := rep.Runs[0]
			if run.Error != "" {
				t.Fatalf("%s, bug %q: %s", file, bug, run.Error)
			}
			if !slices.ContainsFunc(run.Cases, func(x reports.Case) bool { return x.Rule == "CONVERGE" }) {
				t.Fatalf("%s, bug %q: no CONVERGE case: the scenario is not perturbed", file, bug)
			}
			if bug == "" {
				for _, x := range run.Cases {
					if x.Status == reports.Fail || x.Rule == "CONVERGE" && x.Status != reports.Pass {
						t.Errorf("%s, no bug: %s %s: %s", file, x.Rule, x.Status, x.Message)
					}
				}
				continue
			}
			for _, f := range c.want {
				i := slices.IndexFunc(run.Cases, func(x reports.Case) bool { return x.Rule == f.rule })
				if i < 0 || run.Cases[i].Status != reports.Fail || !strings.Contains(run.Cases[i].Message, f.message) {
					t.Errorf("%s, bug %q: %s not failed with %q: %+v", file, bug, f.rule, f.message, run.Cases)
				}
			}
		}
	}
}

// Exploring a built-in's perturbations, as opcert perturb does, finds each
// planted bug with no scenario written for it, and the scenario file it
// writes for the failure replays it; the operator without a bug fails at
// none of them. The crashes (of the operator and of the detector) and the
// conflicts of stale-healthy-answer are enough: 25 points, of which each
// bug is explored at its kind's.
func TestExplorationFindsTheBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	explore := func(bug, out string, roles []string, kind ...string) map[string]int {
		rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
			New: operator(staleoperator.Options{Bug: bug}), Config: server.Config, Scenarios: []string{"stale-healthy-answer"},
			Perturb: &certify.Perturb{Roles: roles, Kinds: kind, ShrinkRuns: 1}, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]int{}
		for _, run := range rep.Runs {
			for _, c := range run.Cases {
				if c.Status == reports.Fail {
					failed[c.Rule]++
				}
			}
		}
		return failed
	}
	if failed := explore("", t.TempDir(), nil, "crash", "conflicts"); len(failed) > 0 {
		t.Errorf("no bug: failed %v", failed)
	}
	for _, c := range []struct{ bug, role, kind, rule string }{
		{"memory", "operator", "crash", "CONVERGE"},
		{"edge", "detector", "crash", "STALE-007"},
		{"stale-cache", "detector", "crash", "STALE-007"},
		{"conflict", "operator", "conflicts", "STALE-007"},
	} {
		out := t.TempDir()
		if failed := explore(c.bug, out, []string{c.role}, c.kind); failed[c.rule] == 0 {
			t.Errorf("bug %q: %s failed at no point (%v)", c.bug, c.rule, failed)
			continue
		}
		files, err := filepath.Glob(filepath.Join(out, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("bug %q: no scenario file written for its failures (%v)", c.bug, err)
		}
		rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
			New: operator(staleoperator.Options{Bug: c.bug}), Config: server.Config, Files: files[:1]})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Failed() {
			t.Errorf("bug %q: %s does not replay a failure", c.bug, filepath.Base(files[0]))
		}
	}
}
