package stackable

import (
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stackable/rules"
	ref "github.com/opcert/opcert/reference/stackable"
)

// operatorImpl is an operator subject: reference/stackable's Operator in a
// profile, with a flaw or none.
type operatorImpl struct {
	profile ref.Profile
	flaw    ref.Flaw
}

// operators are the operator role's subjects: the reference, what
// operator-rs shipped (a profile, not a mutant), and one broken subject
// per flaw of reference/stackable, each breaking a rule (mutants_test.go
// shows which).
var operators = func() []conformance.Subject {
	out := []conformance.Subject{
		{Name: "reference", Description: "reference/stackable: publishes ADR027's conditions row by row, as DESIGN 004 reads the table",
			Impl: operatorImpl{profile: ref.ProfileSeed}},
		{Name: "operator-rs", Description: "what stackabletech/operator-rs shipped: Available from replica counts only, ReconciliationPaused and Stopped from spec.clusterOperation",
			Impl: operatorImpl{profile: ref.ProfileOperatorRS}, Profile: rules.ProfileOperatorRS},
	}
	for _, f := range ref.Flaws() {
		out = append(out, conformance.Subject{Name: string(f), Description: f.Description(), Impl: operatorImpl{profile: ref.ProfileSeed, flaw: f}})
	}
	return out
}()
