package olm

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/reference/olm/expr"
)

// Reading says what an Upgradeable expression states.
type Reading string

const (
	// ReadingHolds (the default, decision 002, conformance/olm/README.md): the
	// expression states when the operator is upgradeable; a CR blocks iff it
	// evaluates to False.
	ReadingHolds Reading = "holds"
	// ReadingBlocks (002 §Test Plan read literally): a CR blocks iff the
	// expression evaluates to True.
	ReadingBlocks Reading = "blocks"
)

// Verdict is what one CR says through one probe resource.
type Verdict struct {
	// Value is the Upgradeable expression's value over the CR's
	// conditions; Unknown when the resource has none.
	Value expr.Value
	// Blocks says the CR blocks the upgrade.
	Blocks bool
	// Reasons are the CR's reasons in the Probe's status (002 §Example
	// Workflow): the Upgradeable expression as written if the CR blocks,
	// then each True condition the Important expression names, in the
	// CR's order.
	Reasons []string
}

// Judge evaluates one CR's conditions against its probe resource. Unknown
// never blocks, under either reading (002 §Test Plan: "cannot be
// calculated"), unless the flaw is UnknownAsFalse.
func Judge(r Resource, conds []metav1.Condition, reading Reading, flaw AggregatorFlaw) Verdict {
	v := Verdict{Value: expr.Unknown}
	if r.Upgradeable != nil {
		v.Value = expr.Eval(r.Upgradeable, func(t string) expr.Value {
			if c := findCondition(conds, t); c != nil {
				return expr.ValueOf(string(c.Status))
			}
			return expr.Unknown
		})
		switch {
		case v.Value == expr.Unknown:
			v.Blocks = flaw == UnknownAsFalse
		case reading == ReadingBlocks:
			v.Blocks = v.Value == expr.True
		default:
			v.Blocks = v.Value == expr.False
		}
	}
	if v.Blocks {
		v.Reasons = append(v.Reasons, r.UpgradeableText)
	}
	for _, c := range conds {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		if flaw == AllTrueImportant || slices.Contains(r.Important, c.Type) {
			v.Reasons = append(v.Reasons, c.Type)
		}
	}
	return v
}

// findCondition is the first condition of type t, nil if none.
func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
