package staleoperator_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/staleoperator"
	"github.com/opcert/opcert/reports"
)

// server is opcert's API server, one for the package, as a team would share
// one across its conformance tests.
var server *certify.Server

func TestMain(m *testing.M) { certify.Main(m, &server) }

// operator is the constructor certify is given, as a team writes it.
func operator(opts staleoperator.Options) certify.New {
	return func(c client.Client, clk clock.PassiveClock, name string) reconcile.Reconciler {
		return staleoperator.NewReconciler(c, clk, name, opts)
	}
}

// The operator passes every STALE rule in the operator role, on every
// built-in within the default budget and on a restart out of phase with
// the challenges. Steps that cannot apply to it (setCondition,
// slowOperator: its operand and its speed are its own) are logged as skipped.
func TestOperatorIsCertified(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	certify.Test(t, certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
		New: operator(staleoperator.Options{}), Config: server.Config})
	certify.Test(t, certify.Options{Mechanism: "stale", Role: "operator", Name: "staleoperator",
		New: operator(staleoperator.Options{}), Config: server.Config, Files: []string{"testdata/restart-out-of-phase.yaml"}})
}

// The careless variant looks only on its 60s resync. Where its resync falls
// out of phase with the challenges, answers come late and STALE-007 fails
// with the evidence: a detector that comes back at 12m challenges at once,
// just after the operator's look at 12m0s (the built-in), and an operator
// restarted at 5m40s looks 40s past each minute (testdata). Elsewhere the
// challenge, 10 minutes after the operator's own write, falls on its resync.
func TestCarelessOperatorFailsTheAnswerBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stale", Role: "operator", Name: "careless",
		New: operator(staleoperator.Options{Careless: true}), Config: server.Config, Out: t.TempDir(),
		Scenarios: []string{"stale-detector-returns"}, Files: []string{"testdata/restart-out-of-phase.yaml"}, Rules: []string{"STALE-007"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct { // files first, then built-ins
		message  string
		evidence [2]string
		max      time.Duration
	}{
		{"ClusterOperator/etcd challenged at +10m0s was reset after 40s, over the 30s budget",
			[2]string{"+10m0s detector update-status ClusterOperator/etcd", "+10m40s operator/etcd update-status ClusterOperator/etcd"}, 40 * time.Second},
		{"ClusterOperator/dns challenged at +12m0s was reset after 1m0s, over the 30s budget (and 3 more)",
			[2]string{"+12m0s detector update-status ClusterOperator/dns", "+13m0s operator/dns update-status ClusterOperator/dns"}, time.Minute},
	} {
		run := rep.Runs[i]
		if run.Error != "" || len(run.Cases) != 2 { // STALE-007, and EXPECT, not judged
			t.Fatalf("%s: error %q, %d cases; want STALE-007 and EXPECT", run.Scenario, run.Error, len(run.Cases))
		}
		c := run.Cases[0]
		if c.Rule != "STALE-007" || c.Status != reports.Fail || !strings.Contains(c.Message, want.message) {
			t.Errorf("%s: %s %s: %s; want STALE-007 failed: %s", run.Scenario, c.Rule, c.Status, c.Message, want.message)
			continue
		}
		if len(c.Evidence) < 2 || !strings.HasPrefix(reports.FormatEvent(c.Evidence[0]), want.evidence[0]) ||
			!strings.HasPrefix(reports.FormatEvent(c.Evidence[1]), want.evidence[1]) {
			t.Errorf("%s: evidence %v, want %q first", run.Scenario, c.Evidence, want.evidence)
		}
		if slices.IndexFunc(c.Measures, func(m reports.Measure) bool { return m.Max == want.max }) < 0 {
			t.Errorf("%s: measures %+v, want one with max %s", run.Scenario, c.Measures, want.max)
		}
	}
}
