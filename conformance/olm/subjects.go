package olm

import (
	"github.com/opcert/opcert/conformance"
	olmref "github.com/opcert/opcert/reference/olm"
)

// The subjects of seed 002's roles: reference/olm's aggregator and gate,
// and one broken subject per flaw reference/olm defines, each breaking
// one requirement a rule judges (mutants_test.go shows which).
var (
	aggregators = subjects("reference/olm: the status probe operator of 002 §Example Workflow, as DESIGN 002 reads it",
		olmref.AggregatorFlaws(), olmref.AggregatorFlaw.Description)
	gates = subjects("reference/olm: OLM's upgrade gate (the Probe's Upgradeable, or the OperatorCondition as OLM shipped it) and its OperatorCondition copier",
		olmref.GateFlaws(), olmref.GateFlaw.Description)
)

// subjects are a role's reference (the zero flaw) and its flawed variants.
func subjects[F ~string](reference string, flaws []F, describe func(F) string) []conformance.Subject {
	var zero F
	out := []conformance.Subject{{Name: "reference", Description: reference, Impl: zero}}
	for _, f := range flaws {
		out = append(out, conformance.Subject{Name: string(f), Description: describe(f), Impl: f})
	}
	return out
}
