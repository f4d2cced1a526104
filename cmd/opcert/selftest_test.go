package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

func selfRun(mutant, scenario string, cases ...reports.Case) selftestRun {
	return selftestRun{Mechanism: "m", Mutant: mutant, Run: reports.Run{Scenario: scenario, Cases: cases}}
}

func fail(rule string) reports.Case {
	return reports.Case{Rule: rule, Status: reports.Fail, Message: "broke " + rule}
}
func pass(rule string) reports.Case { return reports.Case{Rule: rule, Status: reports.Pass} }

func TestBuildMatrix(t *testing.T) {
	rules := map[string][]string{"m": {"R-1", "R-2"}}
	mutants := map[string][]string{"m": {"m.a=x", "m.a=y"}}
	for _, tc := range []struct {
		name      string
		runs      []selftestRun
		unfailed  []string
		survivors []string
		reference int
		rate      float64
	}{
		{"every rule failed, every mutant caught", []selftestRun{
			selfRun("", "s1", pass("R-1"), pass("R-2"), pass("EXPECT")),
			selfRun("m.a=x", "s1", fail("R-1"), pass("R-2")),
			selfRun("m.a=y", "s1", pass("R-1"), pass("R-2")),
			selfRun("m.a=y", "s2", pass("R-1"), fail("R-2")),
		}, nil, nil, 0, 1},
		{"a rule no mutant fails", []selftestRun{
			selfRun("m.a=x", "s1", fail("R-1"), pass("R-2")),
			selfRun("m.a=y", "s1", fail("R-1"), reports.Case{Rule: "R-2", Status: reports.Skip}),
		}, []string{"R-2"}, nil, 0, 1},
		{"a survivor, caught only by an expectation", []selftestRun{
			selfRun("m.a=x", "s1", fail("R-1"), fail("R-2")),
			selfRun("m.a=y", "s1", pass("R-1"), pass("R-2"), fail("EXPECT")),
		}, nil, []string{"m.a=y"}, 0, 0.5},
		{"the reference fails a rule, an expectation, and breaks a run", []selftestRun{
			selfRun("", "s1", fail("R-1"), pass("R-2"), fail("EXPECT")),
			{Mechanism: "m", Run: reports.Run{Scenario: "s2", Error: "livelock", Stopped: reports.StopSubject}},
			selfRun("m.a=x", "s1", fail("R-1")),
			selfRun("m.a=y", "s1", fail("R-2")),
		}, nil, nil, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := buildMatrix(rules, mutants, nil, tc.runs)
			if !reflect.DeepEqual(m.Unfailed, tc.unfailed) {
				t.Errorf("unfailed rules %v, want %v", m.Unfailed, tc.unfailed)
			}
			if !reflect.DeepEqual(m.Survivors, tc.survivors) {
				t.Errorf("survivors %v, want %v", m.Survivors, tc.survivors)
			}
			if len(m.Reference) != tc.reference {
				t.Errorf("reference failures %q, want %d", m.Reference, tc.reference)
			}
			if m.KillRate != tc.rate {
				t.Errorf("kill rate %v, want %v", m.KillRate, tc.rate)
			}
			if want := tc.unfailed == nil && tc.survivors == nil && tc.reference == 0; m.ok() != want {
				t.Errorf("ok() = %v, want %v", m.ok(), want)
			}
			if len(m.Rules) != 2 || len(m.Mutants) != 2 {
				t.Errorf("matrix %d rules x %d mutants, want 2 x 2", len(m.Rules), len(m.Mutants))
			}
		})
	}
	m := buildMatrix(rules, mutants, nil, []selftestRun{
		selfRun("m.a=x", "s1", fail("R-1"), fail("R-2")),
		selfRun("m.a=y", "s2", fail("R-2"), fail("EXPECT")),
	})
	if got := m.Rules[1].FailedBy; !reflect.DeepEqual(got, []string{"m.a=x", "m.a=y"}) {
		t.Errorf("R-2 failed by %v", got)
	}
	if got := m.Mutants[0].Fails; !reflect.DeepEqual(got, []string{"R-1", "R-2"}) {
		t.Errorf("m.a=x fails %v", got)
	}
	if m.Mutants[1].Expects != nil {
		t.Errorf("a caught mutant lists its expectations: %v", m.Mutants[1].Expects)
	}
	// Both rules fail by fewer than wantKills mutants: reported, not failed.
	if want := []string{"R-1 (1)", "R-2 (2)"}; !reflect.DeepEqual(m.Thin, want) || !m.ok() {
		t.Errorf("thin rules %v (ok %v), want %v and ok", m.Thin, m.ok(), want)
	}
}

// A convention rule's warning on a mutant catches it as a failure would;
// on the reference it is listed apart and fails nothing (a strict run
// reports it as a failure, which fails the self-test).
func TestBuildMatrixWarnings(t *testing.T) {
	warn := func(rule string) reports.Case {
		return reports.Case{Rule: rule, Status: reports.Warn, Message: "styled " + rule}
	}
	rules := map[string][]string{"m": {"R-1", "R-2"}}
	mutants := map[string][]string{"m": {"m.a=x"}}
	m := buildMatrix(rules, mutants, nil, []selftestRun{
		selfRun("", "s1", pass("R-1"), warn("R-2")),
		selfRun("m.a=x", "s1", fail("R-1"), warn("R-2")),
	})
	if got := m.Mutants[0].Fails; !reflect.DeepEqual(got, []string{"R-1", "R-2"}) {
		t.Errorf("m.a=x fails %v, want both rules", got)
	}
	if want := []string{"s1: R-2: styled R-2"}; !reflect.DeepEqual(m.ReferenceWarnings, want) || len(m.Reference) != 0 || !m.ok() {
		t.Errorf("reference warnings %q, failures %q, ok %v: want %q, none, ok", m.ReferenceWarnings, m.Reference, m.ok(), want)
	}
}

// A faithful variant's rule failure, or a run it broke, fails the self-test
// with its evidence and is counted against the rule; its warnings and its
// failed expectations are not (listed apart), and it is never a survivor.
func TestBuildMatrixFaithful(t *testing.T) {
	rules := map[string][]string{"m": {"R-1", "R-2"}}
	mutants := map[string][]string{"m": {"m.a=x"}}
	faithful := map[string][]string{"m": {"m.a=f1", "m.a=f2"}}
	variant := func(name, scenario string, cases ...reports.Case) selftestRun {
		return selftestRun{Mechanism: "m", Faithful: name, Run: reports.Run{Scenario: scenario, Cases: cases}}
	}
	caught := []selftestRun{selfRun("m.a=x", "s1", fail("R-1"), fail("R-2"))}
	for _, tc := range []struct {
		name     string
		runs     []selftestRun
		failed   int
		failures map[string][]string // rule -> variants
	}{
		{"a variant that warns", []selftestRun{
			variant("m.a=f1", "s1", pass("R-1"), reports.Case{Rule: "R-2", Status: reports.Warn}),
			variant("m.a=f2", "s1", pass("R-1"), pass("R-2")),
		}, 0, map[string][]string{"R-1": {}, "R-2": {}}},
		// Built-in expectations hold for any faithful subject: one that
		// fails them counts as the variant's failure.
		{"a variant fails an expectation", []selftestRun{
			variant("m.a=f1", "s1", pass("R-1"), pass("R-2")),
			variant("m.a=f2", "s1", pass("R-1"), pass("R-2"), fail("EXPECT")),
		}, 1, map[string][]string{"R-1": {}, "R-2": {}}},
		{"a variant fails a rule", []selftestRun{
			variant("m.a=f1", "s1", pass("R-1"), pass("R-2")),
			variant("m.a=f2", "s2", fail("R-1"), pass("R-2")),
		}, 1, map[string][]string{"R-1": {"m.a=f2"}, "R-2": {}}},
		{"a variant breaks a run", []selftestRun{
			{Mechanism: "m", Faithful: "m.a=f1", Run: reports.Run{Scenario: "s1", Error: "livelock", Stopped: reports.StopSubject}},
		}, 1, map[string][]string{"R-1": {}, "R-2": {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := buildMatrix(rules, mutants, faithful, append(caught, tc.runs...))
			if m.FaithfulFailed != tc.failed || m.ok() != (tc.failed == 0) {
				t.Errorf("faithful failed %d (ok %v), want %d", m.FaithfulFailed, m.ok(), tc.failed)
			}
			for _, r := range m.Rules {
				if !reflect.DeepEqual(r.FaithfulFails, tc.failures[r.ID]) {
					t.Errorf("%s failed by faithful %v, want %v", r.ID, r.FaithfulFails, tc.failures[r.ID])
				}
			}
			if len(m.Faithful) != 2 || len(m.Mutants) != 1 || len(m.Survivors) != 0 || m.KillRate != 1 {
				t.Errorf("%d faithful, %d mutants, survivors %v, kill rate %v: want 2, 1, none, 1", len(m.Faithful), len(m.Mutants), m.Survivors, m.KillRate)
			}
		})
	}
	m := buildMatrix(rules, mutants, faithful, append(caught, variant("m.a=f2", "s1", fail("EXPECT"), fail("R-2"))))
	f := m.Faithful[1]
	if len(f.Failures) != 2 || f.Failures[0].Rule != "EXPECT" || f.Failures[1].Rule != "R-2" || f.Failures[1].Message != "broke R-2" {
		t.Errorf("m.a=f2: failures %+v, want s1's expectations' and R-2's", f.Failures)
	}
	var b strings.Builder
	writeSelftestSummary(&b, &selftestReport{Mechanisms: []string{"m"}, Scenarios: map[string][]string{"m": {"s1"}}, Matrix: m})
	for _, want := range []string{"mutants killed 100% (1/1), faithful variants failed 1/2", "FAITHFUL FAILS m.a=f2 in s1: R-2: broke R-2", "FAIL: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSelftestBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	for _, args := range [][]string{
		{"--mechanism", "nope"},
		{"--max-calls", "-1"},
		{"--answer-budget", "-1s"},
		{"--reaction-bound", "-1s"},
		{"--reaction-bound", "2h"},
		{"--reaction-bound", "nope=30s"},
		{"--reaction-bound", "soon"},
	} {
		r := opcert(t, nil, append([]string{"selftest", "--out", out}, args...)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	checkUntouched(t, out)
}

// Needs kube-apiserver and etcd (make envtest).
func TestSelftestStale(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	out := filepath.Join(t.TempDir(), "selftest")
	r := opcert(t, nil, "selftest", "--mechanism", "stale", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"kill rate 100%", "PASS:", "SKIPPED stale-fleet-24h"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the summary does not say %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stderr, "staticpod") {
		t.Errorf("--mechanism stale ran staticpod:\n%s", r.stderr)
	}
	if !ours(out) {
		t.Errorf("the report directory lacks its marker %s", marker)
	}
	md, err := os.ReadFile(filepath.Join(out, "selftest.md"))
	if err != nil || !strings.Contains(string(md), "| STALE-007 |") || !strings.Contains(string(md), "stale.operator=slow") {
		t.Errorf("selftest.md lacks the matrix (%v):\n%s", err, md)
	}
	data, err := os.ReadFile(filepath.Join(out, "selftest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep selftestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.Matrix.KillRate != 1 || len(rep.Matrix.Rules) == 0 || len(rep.Matrix.Mutants) == 0 {
		t.Errorf("selftest.json: passed %v, kill rate %v, %d rules x %d mutants", rep.Passed, rep.Matrix.KillRate, len(rep.Matrix.Rules), len(rep.Matrix.Mutants))
	}
	for _, mu := range rep.Matrix.Mutants {
		if mu.Mechanism != "stale" || len(mu.Fails) == 0 {
			t.Errorf("mutant %+v", mu)
		}
	}
}
