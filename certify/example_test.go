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
