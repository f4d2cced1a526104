package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Built-ins the run came to by default and cannot play the way it plays
// (issue 20 §4) are left out before anything starts, and the plan says
// which and why: a mechanism that cannot scale its times under
// --time-scale, a scenario with API errors in a real-time run, a mechanism
// none of whose roles an executable can play in a run that gives one.
func TestRunLeavesOutBuiltinsItCannotPlay(t *testing.T) {
	toy := []string{toyEnv + "=1"} // a mechanism that can do neither (toy_test.go)
	for _, tc := range []struct {
		env     []string
		args    []string
		skipped []string // lines of the plan
		played  []string // scenarios still planned
	}{
		{nil, []string{"--time-scale", "0.01"},
			// Every built-in mechanism scales its times: nothing is left out.
			nil,
			[]string{"stale-api-errors", "co-apply-errors", "stackable-steady", "olm-no-crs", "staticpod-bootstrap"}},
		{toy, []string{"--time-scale", "0.01"},
			[]string{"not played: scenario toy-lamp (toy): mechanism toy cannot scale its times, so --time-scale 0.01 cannot play it"},
			[]string{"stale-api-errors", "co-apply-errors", "stackable-steady", "olm-no-crs", "staticpod-bootstrap"}},
		{toy, []string{"--subject", "stale.operator=exec:/bin/true"},
			[]string{"not played: scenario stale-api-errors (stale): its apiErrors steps are injected in virtual time only, and this run plays in real time",
				"not played: scenario toy-lamp (toy): mechanism toy has no role an executable or a Deployment can play"},
			// The other mechanisms' scenarios play: their roles are the
			// references', in virtual time.
			[]string{"stale-hang", "co-apply-errors", "stackable-steady", "olm-no-crs", "staticpod-bootstrap"}},
	} {
		r := opcert(t, tc.env, append([]string{"run", "--dry-run"}, tc.args...)...)
		if r.code != exitPass {
			t.Errorf("%v: exit %d, want 0\n%s", tc.args, r.code, r.stderr)
			continue
		}
		planned := plannedScenarios(r.stdout)
		for _, want := range tc.skipped {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: the plan does not say %q:\n%s", tc.args, want, r.stdout)
			}
		}
		for _, name := range tc.played {
			if !planned[name] {
				t.Errorf("%v: %s is not planned", tc.args, name)
			}
		}
		for name := range planned {
			if name == toyScenario || name == "stale-api-errors" && tc.args[0] == "--subject" {
				t.Errorf("%v: %s is planned", tc.args, name)
			}
		}
	}
}

// plannedScenarios are the scenarios of a dry run's plan table.
func plannedScenarios(plan string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(plan, "\n") {
		if f := strings.Fields(line); len(f) > 2 && strings.Trim(f[0], "0123456789") == "" {
			out[f[1]] = true
		}
	}
	return out
}

// What the user named (a FILE, --scenario, or with --mechanism a
// mechanism) and cannot be played the way the run plays is refused, exit
// 2, before the API server starts and with the report directory left as it
// was: it never runs the scenarios before it first.
func TestRunRefusesNamedScenariosItCannotPlay(t *testing.T) {
	apiErrors := write(t, t.TempDir(), "faults.yaml", minimal+`steps:
  - at: 1m
    apiErrors: {role: detector, on: writes, code: 500, for: 1m}
`)
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	exec := "stale.operator=exec:/bin/true"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "stale-hang", "--scenario", toyScenario, "--time-scale", "0.01"}, "mechanism toy cannot scale its times, so --time-scale 0.01 cannot play it; run it without --time-scale"},
		{[]string{"--mechanism", "stale", "--mechanism", toyName, "--time-scale", "0.01"}, "mechanism toy cannot scale its times"},
		{[]string{"--scenario", "stale-api-errors", "--subject", exec}, "steps[0].apiErrors: API errors are injected in virtual time only"},
		{[]string{apiErrors, "--subject", exec}, "faults.yaml:9: steps[0].apiErrors"},
		{[]string{"--scenario", "stale-hang", "--scenario", toyScenario, "--subject", exec}, "mechanism toy has no role an executable or a Deployment can play"},
		{[]string{"--mechanism", toyName, "--subject", exec}, "mechanism toy has no role an executable or a Deployment can play"},
	} {
		// The toy mechanism (toy_test.go) can do neither.
		r := opcert(t, []string{toyEnv + "=1"}, append([]string{"run", "--out", out}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("%v: exit %d, want %d before the API server starts, saying %q\n%s", tc.args, r.code, exitUsage, tc.want, r.stderr)
		}
	}
	checkUntouched(t, out)
}

// A real-time run is planned in real time (issue 20 §4: --dry-run said 63ms
// for a run of 36s): its scenario's duration times the scale, and the start
// of what plays it; one over longRealTime is said on stderr before
// anything starts, with how to make it shorter.
func TestRealTimeRunsArePlannedInRealTime(t *testing.T) {
	r := opcert(t, nil, "run", "--dry-run", "--scenario", "stale-operator-death", "--time-scale", "0.01", "--subject", "stale.operator=exec:/bin/true")
	row := regexp.MustCompile(`(?m)^1 +stale-operator-death +stale +\S+ +30m0s +real time x0.01 +\d+ +19s *$`)
	if r.code != exitPass || !row.MatchString(r.stdout) || !strings.Contains(r.stdout, "and 19s of wall time") {
		t.Errorf("exit %d, want the run planned at 30m x 0.01 + 1s:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = opcert(t, nil, "run", "--dry-run", "--scenario", "stale-operator-death")
	if !regexp.MustCompile(`(?m)^1 +stale-operator-death .* 30m0s +virtual +\d+ +\d+ms *$`).MatchString(r.stdout) {
		t.Errorf("the run in virtual time is not planned in API calls:\n%s", r.stdout)
	}
	// The fleet's 24h at 0.01 is 14m24s: said before the API server
	// starts (here it cannot: no binaries, exit 3).
	out := filepath.Join(t.TempDir(), "report")
	r = opcert(t, []string{"KUBEBUILDER_ASSETS=" + t.TempDir()}, "run", "--out", out, "--scenario", "stale-fleet-24h", "--time-scale", "0.01", "--subject", "stale.operator=exec:/bin/true")
	warning := "opcert: a long run: about 14m25s of wall time, 14m25s of it in real time (each scenario's duration x --time-scale 0.01); to shorten it, run fewer scenarios (--scenario, --mechanism) or a smaller --time-scale than 0.01"
	at, start := strings.Index(r.stderr, warning), strings.Index(r.stderr, "starting kube-apiserver")
	if r.code != exitEnv || at < 0 || start >= 0 && start < at {
		t.Errorf("exit %d, want 3 after the warning %q, said first:\n%s", r.code, warning, r.stderr)
	}
	r = opcert(t, []string{"KUBEBUILDER_ASSETS=" + t.TempDir()}, "run", "--out", out, "--scenario", "stale-operator-death", "--time-scale", "0.01", "--subject", "stale.operator=exec:/bin/true")
	if strings.Contains(r.stderr, "a long run") {
		t.Errorf("a run of 19s is said long:\n%s", r.stderr)
	}
}
