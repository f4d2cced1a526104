package certify_test

import (
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/reports"
)

// Library mode for seed 003: a team's own core for each role
// (staticpod_team_test.go, written from the seed against
// conformance/staticpod/contract) passes the built-ins within the default
// budget, each of its role's rules passed somewhere, with an instance of
// it made for each process of the role; its broken twin fails the rule it
// breaks.
func TestStaticpodTeamCores(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	for _, c := range []struct {
		role   string
		core   func() any
		broken func() any
		rules  []string // the role's rules, each to pass somewhere
		// fails is the rule the broken core fails, in scenario.
		fails, scenario string
	}{
		{role: "startup-monitor",
			core:   func() any { return &teamMonitor{} },
			broken: func() any { return &teamMonitor{ownTimeout: 3 * time.Minute} },
			rules:  []string{"STATICPOD-001", "STATICPOD-002", "STATICPOD-003", "STATICPOD-004", "STATICPOD-005", "STATICPOD-012", "STATICPOD-013"},
			fails:  "STATICPOD-001", scenario: "staticpod-hook-never-finishes"},
		{role: "installer",
			core:   func() any { return teamInstaller{} },
			broken: func() any { return teamInstaller{careless: true} },
			rules:  []string{"STATICPOD-010", "STATICPOD-014"},
			fails:  "STATICPOD-010", scenario: "staticpod-lock-race"},
		{role: "operator",
			core:   func() any { return teamOperator{firstRetry: 12 * time.Minute} },
			broken: func() any { return teamOperator{firstRetry: 5 * time.Minute} },
			rules:  []string{"STATICPOD-006", "STATICPOD-007", "STATICPOD-008", "STATICPOD-011", "STATICPOD-015"},
			fails:  "STATICPOD-007", scenario: "staticpod-hook-never-finishes"},
		{role: "pruner",
			core:   func() any { return teamPruner{} },
			broken: func() any { return teamPruner{linkBlind: true} },
			rules:  []string{"STATICPOD-009"},
			fails:  "STATICPOD-009", scenario: "staticpod-ten-failing-revisions"},
	} {
		t.Run(c.role, func(t *testing.T) {
			var made atomic.Int64
			rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "staticpod", Role: c.role, Config: config,
				Core: func() any { made.Add(1); return c.core() }})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) < 10 {
				t.Fatalf("%d runs; want the staticpod built-ins within the default budget", len(rep.Runs))
			}
			passedSomewhere(t, rep, c.rules...)
			// One checked before each run, then one per process.
			if n := made.Load(); n < int64(2*len(rep.Runs)) {
				t.Errorf("%d instances made in %d runs; want one per process of the role besides the check", n, len(rep.Runs))
			}

			rep, err = certify.Run(t.Context(), certify.Options{Mechanism: "staticpod", Role: c.role, Name: "broken", Config: config,
				Core: c.broken, Scenarios: []string{c.scenario}, Rules: []string{c.fails}})
			if err != nil {
				t.Fatal(err)
			}
			run := rep.Runs[0]
			if run.Error != "" || len(run.Cases) != 2 { // the rule, and EXPECT, not judged
				t.Fatalf("error %q, %d cases; want %s and EXPECT", run.Error, len(run.Cases), c.fails)
			}
			if cs := run.Cases[0]; cs.Rule != c.fails || cs.Status != reports.Fail || len(cs.Evidence) == 0 {
				t.Errorf("%s %s: %s (evidence %d); want %s failed with evidence", cs.Rule, cs.Status, cs.Message, len(cs.Evidence), c.fails)
			}
		})
	}
}

// passedSomewhere fails t for each run stopped or with a failed rule, and
// for each of ids that passed in no run.
func passedSomewhere(t *testing.T, rep *reports.Report, ids ...string) {
	t.Helper()
	passed := map[string]bool{}
	for _, run := range rep.Runs {
		if run.Error != "" || run.Stopped != "" {
			t.Errorf("%s: stopped %q: %s", run.Scenario, run.Stopped, run.Error)
		}
		for _, c := range run.Cases {
			switch c.Status {
			case reports.Fail:
				t.Errorf("%s: %s failed: %s", run.Scenario, c.Rule, c.Message)
			case reports.Pass:
				passed[c.Rule] = true
			}
		}
	}
	for _, id := range ids {
		if !passed[id] {
			t.Errorf("%s passed in no run; passed: %v", id, slices.Sorted(maps.Keys(passed)))
		}
	}
}
