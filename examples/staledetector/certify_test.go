package main

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/reports"
)

// server is opcert's API server, one for the package, as a team would share
// one across its conformance tests.
var server *certify.Server

func TestMain(m *testing.M) { certify.Main(m, &server) }

// detector is the constructor certify is given, as a team writes it: the
// seed's waits (10 minutes each, the mark stating their sum), on the run's
// clock. The run's client reads what it writes at once, so it is the
// Reader too (the process reads past its cache for that).
func detector(challengeAfter, unknownAfter time.Duration) certify.New {
	return func(c client.Client, clk clock.PassiveClock, _ string) reconcile.Reconciler {
		return &Detector{Client: c, Reader: c, Clock: clk,
			ChallengeAfter: challengeAfter, UnknownAfter: unknownAfter, Silence: 20 * time.Minute}
	}
}

// detectorRules are the rules of the detector role: each must be judged
// (passed) in some run, so that a pass says something of the detector.
var detectorRules = []string{"STALE-001", "STALE-002", "STALE-003", "STALE-004", "STALE-005", "STALE-006"}

// The example detector passes every STALE rule in library mode, in virtual
// time, on every built-in certify plays by default (all but the 24-hour
// fleet), with opcert's reference operators.
func TestDetectorIsCertified(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "detector", Name: "staledetector",
		New: detector(10*time.Minute, 10*time.Minute), Config: server.Config})
	if err != nil {
		t.Fatal(err)
	}
	passed := map[string]int{}
	for _, run := range rep.Runs {
		for _, c := range run.Cases {
			if c.Status == reports.Pass {
				passed[c.Rule]++
			}
		}
	}
	if v := rep.Verdict(); v != "PASS" || len(rep.Runs) < 9 {
		for _, run := range rep.Runs {
			t.Log(run.Headline(), run.Error, run.NotJudged)
			for _, c := range run.Cases {
				if c.Status != reports.Pass {
					t.Log(c.Rule, c.Status, c.Message)
				}
			}
		}
		t.Fatalf("%s on %d runs; want PASS on (at least) the 9 built-ins", v, len(rep.Runs))
	}
	for _, run := range rep.Runs {
		t.Log(run.Headline())
	}
	for _, id := range detectorRules {
		if passed[id] == 0 {
			t.Errorf("%s judged in no run: passed %v", id, passed)
		}
	}
}

// Two broken variants fail the rule they break, with the evidence: one
// that challenges a minute after its deadline (STALE-002, over the 30s
// reaction bound) and one that never marks (its 10 minutes without an
// answer are 10 hours: STALE-004). operator-death leaves auth dead, so
// both deadlines fall due.
func TestBrokenDetectorsFailTheirRule(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	for _, tc := range []struct {
		name, rule, message string
		new                 certify.New
	}{
		{"late", "STALE-002", "due a challenge at +10m0s, within the 30s reaction bound; the detector's next challenge came at +11m1s",
			detector(11*time.Minute, 10*time.Minute)},
		{"never-marks", "STALE-004", "challenged at +10m1s and not answered, but not set Unknown at +20m1s",
			detector(10*time.Minute, 10*time.Hour)},
	} {
		rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "detector", Name: tc.name,
			New: tc.new, Config: server.Config, Scenarios: []string{"stale-operator-death"}, Rules: []string{tc.rule}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 1 {
			t.Fatalf("%s: %d runs, want 1", tc.name, len(rep.Runs))
		}
		run := rep.Runs[0]
		i := -1
		for j, c := range run.Cases {
			if c.Rule == tc.rule {
				i = j
			}
		}
		if run.Error != "" || i < 0 {
			t.Fatalf("%s: error %q, cases %+v; want %s judged", tc.name, run.Error, run.Cases, tc.rule)
		}
		c := run.Cases[i]
		t.Logf("%s: %s %s: %s", tc.name, c.Rule, c.Status, c.Message)
		if c.Status != reports.Fail || !strings.Contains(c.Message, tc.message) || len(c.Evidence) == 0 {
			t.Errorf("%s: %s %s: %s (%d events of evidence); want it failed, saying %q, with evidence",
				tc.name, c.Rule, c.Status, c.Message, len(c.Evidence), tc.message)
		}
	}
}
