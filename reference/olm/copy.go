package olm

import (
	"slices"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CopyConditions is OLM's copy of an OperatorCondition's spec.conditions to
// its status.conditions (docs/upstream.md, seed 002): each spec condition
// replaces the status condition of its type, stamped with observedGeneration =
// generation; a condition whose status and observedGeneration already match is
// left as it is (a spec change bumps the generation, so every change of the
// spec is copied). lastTransitionTime moves only when the status changes, to
// the spec's own time or, when it has none, to now. Status conditions no
// longer in the spec are kept, as OLM keeps them. changed says the result
// differs from status. The flaw CopiesStatusOnly copies a condition only when
// its status changed; UnstampedCopy keeps the spec's observedGeneration;
// CopiesWithoutMessage drops the message.
func CopyConditions(spec, status []metav1.Condition, generation int64, now time.Time, flaw GateFlaw) (out []metav1.Condition, changed bool) {
	out = slices.Clone(status)
	for _, c := range spec {
		if have := meta.FindStatusCondition(out, c.Type); have != nil && have.Status == c.Status &&
			(have.ObservedGeneration == generation || flaw == CopiesStatusOnly) {
			continue
		}
		if flaw != UnstampedCopy {
			c.ObservedGeneration = generation
		}
		if flaw == CopiesWithoutMessage {
			c.Message = ""
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		meta.SetStatusCondition(&out, c)
	}
	return out, !apiequality.Semantic.DeepEqual(out, status)
}
