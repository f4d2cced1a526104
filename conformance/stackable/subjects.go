package stackable

import (
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stackable/faithful"
	"github.com/opcert/opcert/conformance/stackable/rules"
	ref "github.com/opcert/opcert/reference/stackable"
)

// operatorImpl is an operator subject: reference/stackable's Operator in a
// profile, with a flaw or none, or a faithful variant (package faithful).
type operatorImpl struct {
	profile  ref.Profile
	flaw     ref.Flaw
	faithful faithful.Variant
}

// operators are the operator role's subjects: the reference, what
// operator-rs shipped (a profile, not a mutant), two faithful variants
// (package faithful: they must fail no rule), and one broken subject
// per flaw of reference/stackable, each breaking a rule (mutants_test.go
// shows which).
var operators = func() []conformance.Subject {
	out := []conformance.Subject{
		{Name: "reference", Description: "reference/stackable: publishes ADR027's conditions row by row, as decision 004 reads the table",
			Impl: operatorImpl{profile: ref.ProfileSeed}},
		{Name: "operator-rs", Description: "what stackabletech/operator-rs shipped: Available from replica counts only, ReconciliationPaused and Stopped from spec.clusterOperation",
			Impl: operatorImpl{profile: ref.ProfileOperatorRS}, Profile: rules.ProfileOperatorRS},
	}
	out = append(out,
		conformance.Subject{Name: "faithful-requeue", Faithful: true, Impl: operatorImpl{faithful: faithful.Requeue},
			Description: "written from the ADR: reacts 20s after each change (a requeue, within the bound), its own reasons and messages, no lastProbeTime, Progressing True where the rows overlap, reports a failed reconcile as Degraded"},
		conformance.Subject{Name: "faithful-terse", Faithful: true, Impl: operatorImpl{faithful: faithful.Terse},
			Description: "written from the ADR: no reasons, conditions in another order, Unknown where the table leaves a case open, the rows by the letter while stopped, silent while its reconcile fails"})
	for _, f := range ref.Flaws() {
		out = append(out, conformance.Subject{Name: string(f), Description: f.Description(), Impl: operatorImpl{profile: ref.ProfileSeed, flaw: f}})
	}
	return out
}()
