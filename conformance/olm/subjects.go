package olm

import (
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm/faithful"
	olmref "github.com/opcert/opcert/reference/olm"
)

// The subjects of seed 002's roles: reference/olm's aggregator and gate,
// one broken subject per flaw reference/olm defines, each breaking one
// requirement a rule judges (mutants_test.go shows which), and the
// faithful aggregators of package faithful.
//
// Faithful variants are written for the aggregator alone: it is the role
// a team brings (the status probe operator, or an operator aggregating
// its own CRs). The olm role is OLM itself, the platform a team's
// operator runs against, which opcert plays as the seed and docs/upstream.md
// describe it; its rules (OLM-006, OLM-008) are proved by its mutants.
var (
	aggregators = append(subjects("reference/olm: the status probe operator of 002 §Example Workflow, as decision 002 reads it",
		olmref.AggregatorFlaws(), olmref.AggregatorFlaw.Description), faithfulAggregators()...)
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

func faithfulAggregators() []conformance.Subject {
	var out []conformance.Subject
	for _, v := range faithful.Variants() {
		out = append(out, conformance.Subject{Name: v.Name, Description: v.Description, Impl: v, Faithful: true})
	}
	return out
}
