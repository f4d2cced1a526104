package olmoperator_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/olmoperator"
	"github.com/opcert/opcert/reports"
)

// server is opcert's API server, one for the package, as a team would share
// one across its conformance tests.
var server *certify.Server

func TestMain(m *testing.M) { certify.Main(m, &server) }

var foo = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Foo"}

// operator is the constructor certify is given, as a team writes it: its
// namespace, its CRs' kind and namespaces are its scenarios'; name is its
// CSV's.
func operator(channel string, namespaces []string, lies bool) certify.New {
	return func(c client.Client, clk clock.PassiveClock, name string) reconcile.Reconciler {
		return olmoperator.NewReconciler(c, clk, olmoperator.Options{Namespace: "operators", Name: name,
			Kinds: []schema.GroupVersionKind{foo}, Namespaces: namespaces, Channel: channel, Lies: lies})
	}
}

// The operator passes every OLM rule on each of its channels, with the
// reference aggregator and gate: its CRs in the built-in
// olm-operator-migration (whose steps of the reference's own writes are
// skipped), its own Probe, its OperatorCondition across a restart.
func TestOperatorIsCertified(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	for _, tc := range []struct {
		channel, scenario, file string
		namespaces              []string
	}{
		{olmoperator.ChannelCRs, "olm-operator-migration", "", []string{"default"}},
		{olmoperator.ChannelProbe, "", "testdata/probe-migration.yaml", []string{"team-a", "team-b"}},
		{olmoperator.ChannelOperatorCondition, "", "testdata/oc-migration.yaml", []string{"default"}},
	} {
		opts := certify.Options{Mechanism: "olm", Role: "operator", Name: "olmoperator-" + tc.channel,
			New: operator(tc.channel, tc.namespaces, false), Config: server.Config}
		if tc.file != "" {
			opts.Files = []string{tc.file}
		} else {
			opts.Scenarios = []string{tc.scenario}
		}
		rep, err := certify.Run(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		run := rep.Runs[0]
		if v := rep.Verdict(); v != "PASS" {
			t.Errorf("%s: %s: %v %s", tc.channel, v, run.NotJudged, run.Error)
			for _, c := range run.Cases {
				t.Logf("%s %s: %s", c.Rule, c.Status, c.Message)
			}
		}
		if c := find(t, run, "OLM-011"); c.Status != reports.Pass {
			t.Errorf("%s: OLM-011 %s: %s", tc.channel, c.Status, c.Message)
		}
	}
}

// The lying operator says Upgradeable True while its operand migrates:
// OLM-011 fails, with the request and the write that stood as evidence.
// An operator that never writes fails OLM-011 too, and never a pass: the
// run also says it never acted.
func TestBrokenOperatorsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "olm", Role: "operator", Name: "liar",
		New: operator(olmoperator.ChannelProbe, []string{"team-a", "team-b"}, true), Config: server.Config,
		Files: []string{"testdata/probe-migration.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	c := find(t, rep.Runs[0], "OLM-011")
	if c.Status != reports.Fail || len(c.Evidence) == 0 {
		t.Errorf("the liar: OLM-011 %s (%d evidence): %s", c.Status, len(c.Evidence), c.Message)
	}
	idle := func(client.Client, clock.PassiveClock, string) reconcile.Reconciler {
		return reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	}
	rep, err = certify.Run(t.Context(), certify.Options{Mechanism: "olm", Role: "operator", Name: "idle",
		New: idle, Config: server.Config, Scenarios: []string{"olm-operator-migration"}})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if v := rep.Verdict(); v != "FAIL" || !slices.ContainsFunc(run.NotJudged, func(s string) bool { return strings.Contains(s, "never acted") }) {
		t.Errorf("the idle operator: %s (%v), want FAIL, saying it never acted", v, run.NotJudged)
	}
	if c := find(t, run, "OLM-011"); c.Status != reports.Fail {
		t.Errorf("the idle operator: OLM-011 %s: %s", c.Status, c.Message)
	}
}

func find(t *testing.T, run reports.Run, rule string) reports.Case {
	t.Helper()
	for _, c := range run.Cases {
		if c.Rule == rule {
			return c
		}
	}
	t.Fatalf("%s: no case %s", run.Scenario, rule)
	return reports.Case{}
}
