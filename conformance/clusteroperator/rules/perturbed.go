package rules

import (
	"strings"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// A perturbation window (docs/concepts/perturbation.md: a fault span whose
// Detail starts timeline.PerturbationDetail) keeps an operator from
// seeing a change or writing its answer, as a broken watch or a burst of
// conflicts does on a real cluster: a deadline that falls in or after it
// is owed the reaction bound after its end, and after the retry its
// failed calls then make, as judge.Processes.Owed counts it. The
// scenario's own API faults are not such windows here: an operator whose
// operand writes are refused still owes what CO-008 asks (decision 001's
// API errors, conformance/clusteroperator/README.md).

// perturbation tells whether e opens or closes a perturbation window.
func perturbation(e timeline.Event) bool {
	return (e.Verb == timeline.VerbFault || e.Verb == timeline.VerbClear) &&
		strings.HasPrefix(e.Detail, timeline.PerturbationDetail)
}

// postpone moves due, the deadline of a reaction owed to a change at at,
// to the same bound after the last perturbation window of x's operator
// that began by it, and so on; it tells whether a window is still open,
// so that nothing is due yet.
func (g *coJudging) postpone(x *component, at time.Time, due *time.Time) (open bool) {
	owed, ok := g.windows.Owed(x.operator(), at, due.Sub(at))
	if !ok {
		return true
	}
	if owed.After(*due) {
		*due = owed
	}
	return false
}
