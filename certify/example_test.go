package certify_test

import (
	"context"
	"fmt"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/examples/staleoperator"
)

// A team certifies its reconciler in the role it plays. Here the operator
// of examples/staleoperator, built on the run's client and clock, plays
// seed 000's operator in one built-in scenario against the team's envtest,
// and passes the rules of its role. Every time it stamps comes from
// clk, which the run moves through the scenario's virtual hour at once.
func ExampleRun() {
	newOperator := func(c client.Client, clk clock.PassiveClock, name string) reconcile.Reconciler {
		return staleoperator.NewReconciler(c, clk, name, staleoperator.Options{})
	}
	rep, err := certify.Run(context.Background(), certify.Options{
		Mechanism: "stale",
		Role:      "operator",
		New:       newOperator,
		Scenarios: []string{"stale-healthy-answer"},
		Config:    config, // the team's envtest (testEnv.Config); nil: opcert starts its own API server
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Verdict())
	for _, c := range rep.Runs[0].Cases {
		if c.Role == "operator" { // the other roles' rules judge opcert's own subjects
			fmt.Printf("%s %s: %s\n", c.Rule, c.Status, c.Message)
		}
	}
	// Output:
	// PASS
	// STALE-007 pass: 6 judged
	// STALE-008 pass: 6 judged
}

// Where a role's world drives a decision core rather than a reconciler
// (seed 003's roles, on a simulated node's files), the team gives Core: a
// constructor of its implementation of the role's interface in
// conformance/staticpod/contract, called for each process of the role and
// again at each restart, so that memory is lost as a real process's. Here
// the team's startup-monitor (teamMonitor, written from the seed in
// certify/staticpod_team_test.go) meets an operand whose post-start hook
// never finishes, and falls back in time.
func ExampleRun_core() {
	rep, err := certify.Run(context.Background(), certify.Options{
		Mechanism: "staticpod",
		Role:      "startup-monitor",
		Core:      func() any { return &teamMonitor{} },
		Scenarios: []string{"staticpod-hook-never-finishes"},
		Config:    config,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Verdict())
	for _, c := range rep.Runs[0].Cases {
		if c.Role == "startup-monitor" {
			fmt.Printf("%s %s: %s\n", c.Rule, c.Status, c.Message)
		}
	}
	// Output:
	// PASS
	// STATICPOD-001 pass: 2 judged; 1 not judged (kube-apiserver revision 3 on master-0 (manifest written at +41m0s): its fallback was not due before the end of the run at +45m0s)
	// STATICPOD-002 pass: 2 judged
	// STATICPOD-003 pass: 2 judged
	// STATICPOD-004 pass: 1 judged
	// STATICPOD-005 pass: 2 judged
	// STATICPOD-012 skip: no revision's operand was ready while its startup-monitor ran
	// STATICPOD-013 pass: 2 judged
}
