package olm

import (
	"slices"
	"time"

	"github.com/opcert/opcert/scenarios"
)

// mergeConditions is a condition list (as unstructured holds it) with set
// applied and the types in remove taken out: a set condition replaces the
// one of its type in place, or is appended; its lastTransitionTime is now
// when its status changes, else the old one. Order matters in seed 002 (a
// CR's Important reasons follow its conditions' order), so it is kept.
//
// A list of metav1.Conditions (an OperatorCondition's, full) carries a
// message always, empty or not: its schema requires the field.
func mergeConditions(old []any, set []scenarios.Condition, remove []string, now time.Time, full bool) []any {
	out := make([]any, 0, len(old)+len(set))
	for _, c := range old {
		if m, ok := c.(map[string]any); ok && !slices.Contains(remove, typeOf(m)) {
			out = append(out, m)
		}
	}
	stamp := now.UTC().Format(time.RFC3339)
	for _, c := range set {
		m := map[string]any{"type": c.Type, "status": c.Status, "lastTransitionTime": stamp}
		if c.Reason != "" {
			m["reason"] = c.Reason
		}
		if c.Message != "" || full {
			m["message"] = c.Message
		}
		i := slices.IndexFunc(out, func(x any) bool { return typeOf(x.(map[string]any)) == c.Type })
		if i < 0 {
			out = append(out, m)
			continue
		}
		if prev := out[i].(map[string]any); prev["status"] == c.Status && prev["lastTransitionTime"] != nil {
			m["lastTransitionTime"] = prev["lastTransitionTime"]
		}
		out[i] = m
	}
	return out
}

func typeOf(m map[string]any) string {
	t, _ := m["type"].(string)
	return t
}
