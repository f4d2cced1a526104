package olm

import (
	"cmp"
	"slices"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/probe"
)

// The Probe's conditions (002 §Example Workflow; ProbeValid is
// opcert's: decision 002, conformance/olm/README.md).
const (
	ConditionUpgradeable = "Upgradeable"
	ConditionProbeValid  = "ProbeValid"

	ReasonNotUpgradeable = "NotUpgradeable"
	ReasonUpgradeable    = "Upgradeable"
	// MessageNotUpgradeable is the seed's text, verbatim.
	MessageNotUpgradeable = "The operator has communicated that the operator is not upgradeable"
	MessageUpgradeable    = "No resource communicates that the operator is not upgradeable"

	ReasonValid             = "Valid"
	ReasonInvalidExpression = "InvalidExpression"
	MessageValid            = "Every condition annotation parses"
)

// Entry is one CR judged through one probe resource.
type Entry struct {
	// Resource is the index of its probe resource in the spec.
	Resource int
	// Kind is its CRD's plural ("foos"), as the status names it.
	Kind, Namespace, Name string
	Verdict
}

// Status is the Probe's status the aggregator wants, from every CR judged
// (entries, in any order), the spec's problems (Compile), the status the
// Probe has (prev), its metadata.generation and now; changed says it
// differs from prev, so that nothing is written when nothing changed.
//
// status.probeResources lists each CR with at least one reason, in order
// of (probe resource, namespace, name). Upgradeable is False iff one CR
// blocks (002 §Example Workflow's note: "If a single CR communicates that
// the operator is not upgradeable"); ProbeValid is False iff an expression
// does not parse, its message every problem joined by "; ". Each
// condition's observedGeneration is generation, and its lastTransitionTime
// moves only when its status changes. Conditions of other types in prev are
// kept.
func Status(entries []Entry, problems []string, prev probe.Status, generation int64, now time.Time, flaw AggregatorFlaw) (st probe.Status, changed bool) {
	var listed []*Entry
	for i := range entries {
		if len(entries[i].Reasons) > 0 {
			listed = append(listed, &entries[i])
		}
	}
	slices.SortFunc(listed, func(a, b *Entry) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	type cr struct{ kind, namespace, name string }
	var frozen map[cr][]string
	if flaw == FrozenReasons {
		frozen = map[cr][]string{}
		for _, p := range prev.ProbeResources {
			frozen[cr{p.Kind, p.Namespace, p.Name}] = p.Reasons
		}
	}
	blocks := false
	if len(listed) > 0 {
		st.ProbeResources = make([]probe.ResourceStatus, 0, len(listed))
	}
	for _, e := range listed {
		blocks = blocks || e.Blocks
		rs := probe.ResourceStatus{Kind: e.Kind, Name: e.Name, Namespace: e.Namespace, Reasons: slices.Clone(e.Reasons)}
		if reasons, ok := frozen[cr{e.Kind, e.Namespace, e.Name}]; ok {
			rs.Reasons = slices.Clone(reasons)
		}
		st.ProbeResources = append(st.ProbeResources, rs)
	}

	st.Conditions = slices.Clone(prev.Conditions)
	stamp := metav1.NewTime(now)
	upgradeable := metav1.Condition{Type: ConditionUpgradeable, Status: metav1.ConditionTrue, Reason: ReasonUpgradeable,
		Message: MessageUpgradeable}
	if blocks {
		upgradeable.Status, upgradeable.Reason, upgradeable.Message = metav1.ConditionFalse, ReasonNotUpgradeable, MessageNotUpgradeable
	}
	valid := metav1.Condition{Type: ConditionProbeValid, Status: metav1.ConditionTrue, Reason: ReasonValid, Message: MessageValid}
	if len(problems) > 0 {
		valid.Status, valid.Reason, valid.Message = metav1.ConditionFalse, ReasonInvalidExpression, strings.Join(problems, "; ")
	}
	switch {
	case blocks && flaw == OwnTexts:
		upgradeable.Reason, upgradeable.Message = "Blocked", "blocked by a custom resource"
	}
	for _, c := range []metav1.Condition{upgradeable, valid} {
		c.ObservedGeneration, c.LastTransitionTime = generation, stamp
		meta.SetStatusCondition(&st.Conditions, c)
	}

	if flaw == FrozenTransition {
		for _, p := range prev.Conditions {
			if c := meta.FindStatusCondition(st.Conditions, p.Type); c != nil {
				c.LastTransitionTime = p.LastTransitionTime
			}
		}
	}
	changed = !apiequality.Semantic.DeepEqual(st, prev)
	if changed && flaw == MovingTransition {
		for i := range st.Conditions {
			if st.Conditions[i].Type == ConditionUpgradeable || st.Conditions[i].Type == ConditionProbeValid {
				st.Conditions[i].LastTransitionTime = stamp
			}
		}
	}
	return st, changed
}
