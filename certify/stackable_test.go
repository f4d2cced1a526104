package certify_test

import (
	"context"
	"maps"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/conformance/stackable/faithful"
	"github.com/opcert/opcert/reports"
)

// stackableOperator is the constructor of seed 004's terse faithful
// operator (written from ADR027, not from reference/stackable), as a team
// gives its reconciler; deaf, it reads its SampleClusters without their
// operator-command annotation.
func stackableOperator(deaf bool) certify.New {
	return func(c client.Client, clk clock.PassiveClock, _ string) reconcile.Reconciler {
		if deaf {
			c = deafClient{c}
		}
		op, err := faithful.New(faithful.Terse, c, clk, nil)
		if err != nil {
			panic(err) // a variant that exists
		}
		return op
	}
}

// deafClient hides the operator-command annotation of the SampleClusters
// it reads: an operator that never sees a pause or a stop.
type deafClient struct{ client.Client }

func (d deafClient) Get(ctx context.Context, key types.NamespacedName, obj client.Object, opts ...client.GetOption) error {
	if err := d.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GetKind() == faithful.ClusterGVK.Kind {
		ann := maps.Clone(u.GetAnnotations())
		delete(ann, "operator-command")
		u.SetAnnotations(ann)
	}
	return nil
}

// A team's stackable operator, certified in library mode on the built-ins
// (all but stackable-load, whose two hours of twenty clusters take most
// of a minute), passes every STACKABLE rule (Style rules may warn: it
// writes no reason and no lastProbeTime), each of 001 to 007 judged
// somewhere.
func TestStackableOperatorIsCertified(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stackable", Role: "operator", Name: "terse",
		New: stackableOperator(false), Config: config, MaxCalls: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 10 {
		t.Fatalf("%d runs, want the ten short stackable built-ins", len(rep.Runs))
	}
	passedSomewhere(t, rep, "STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-005", "STACKABLE-006", "STACKABLE-007")
}

// The same operator deaf to operator-command fails STACKABLE-004 where a
// cluster is paused, with the write that proves it.
func TestDeafStackableOperatorFailsItsRule(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "stackable", Role: "operator", Name: "deaf",
		New: stackableOperator(true), Config: config, Scenarios: []string{"stackable-paused"}, Rules: []string{"STACKABLE-004"}})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if run.Error != "" || len(run.Cases) != 2 { // STACKABLE-004, and EXPECT, not judged
		t.Fatalf("error %q, %d cases; want STACKABLE-004 and EXPECT", run.Error, len(run.Cases))
	}
	if c := run.Cases[0]; c.Rule != "STACKABLE-004" || c.Status != reports.Fail || len(c.Evidence) == 0 {
		t.Errorf("%s %s: %s (evidence %d); want STACKABLE-004 failed with evidence", c.Rule, c.Status, c.Message, len(c.Evidence))
	}
}
