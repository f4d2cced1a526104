package certify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/staleoperator"
	"github.com/opcert/opcert/reports"
)

// On a team's envtest with no CRD of opcert's, Run installs them, plays the
// scenarios and writes the usual files.
func TestRunOnTheTeamsEnvtest(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	out := t.TempDir()
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", New: operator,
		Scenarios: []string{"stale-healthy-answer"}, Config: config, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if present, err := hasCRD(teamEnv); err != nil || !present {
		t.Fatalf("the ClusterOperator CRD is not installed (%v)", err)
	}
	if rep.Failed() || len(rep.Runs) != 1 || rep.Runs[0].Subjects["operator"] != "team" {
		t.Fatalf("report: failed %t, runs %+v; want one passing run with the team's operator", rep.Failed(), rep.Runs)
	}
	for _, f := range []string{"junit.xml", "report.json", "report.md", "timelines/01-stale-healthy-answer.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// A reconciler that stamps times from the wall clock (here, the example
// operator given a real clock instead of the run's) stops the run with a
// message that says to use the injected clock, and no rule is judged on
// its times: not passed, not failed.
func TestWallClockStampsStopTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	wall := func(c client.Client, _ clock.PassiveClock, name string) reconcile.Reconciler {
		return staleoperator.NewReconciler(c, clock.RealClock{}, name, staleoperator.Options{})
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", New: wall,
		Scenarios: []string{"stale-healthy-answer"}, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if !rep.Failed() || run.Stopped != reports.StopSubject {
		t.Errorf("run stopped %q, report failed %t; want the run failed by its subject", run.Stopped, rep.Failed())
	}
	for _, want := range []string{"operator/etcd stamped ClusterOperator/etcd condition", "from the wall clock", "conformance.Instance.Clock"} {
		if !strings.Contains(run.Error, want) {
			t.Errorf("error %q does not say %q", run.Error, want)
		}
	}
	for _, c := range run.Cases {
		if c.Status != reports.Skip || !strings.HasPrefix(c.Message, "not judged") {
			t.Errorf("%s %s: %s; want not judged", c.Rule, c.Status, c.Message)
		}
	}
}

// Options opcert cannot run say what exists.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opts certify.Options
		want string
	}{
		{certify.Options{Mechanism: "stale", Role: "operator"}, "Options.New is nil"},
		{certify.Options{Mechanism: "nope", Role: "operator", New: operator}, `no mechanism "nope"; mechanisms: `},
		{certify.Options{Mechanism: "stale", Role: "nope", New: operator}, `no role "nope"; roles: detector, operator`},
		{certify.Options{Mechanism: "stale", Role: "operator", New: operator, Rules: []string{"STALE-999"}}, `no rule "STALE-999"; rules: STALE-001`},
		{certify.Options{Mechanism: "stale", Role: "operator", New: operator, Flags: map[string]string{"answer-budget": "soon"}}, "answer-budget"},
		{certify.Options{Mechanism: "stale", Role: "operator", New: operator, Scenarios: []string{"nope"}}, `no built-in scenario "nope"`},
		{certify.Options{Mechanism: "stale", Role: "operator", New: operator, Subjects: map[string]string{"operator": "slow"}}, "the role your reconciler plays"},
		// Found through the registry, refused as the role declares it.
		{certify.Options{Mechanism: "staticpod", Role: "startup-monitor", New: operator, Core: func() any { return nil }}, "Options.New and Options.Core are both set"},
		{certify.Options{Mechanism: "olm", Role: "olm", New: operator}, "role olm.olm cannot be played by a team's reconciler (library mode): OLM itself"},
	} {
		if _, err := certify.Run(t.Context(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}
