package sim

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/opcert/opcert/sim/timeline"
)

// Conditions reads status.conditions from any object that has them
// (ClusterOperator, OperatorCondition, a custom resource), so the recorder
// needs no per-type code.
func Conditions(obj runtime.Object) []timeline.Condition {
	m := content(obj)
	if m == nil {
		return nil
	}
	raw, _, _ := unstructured.NestedSlice(m, "status", "conditions")
	out := make([]timeline.Condition, 0, len(raw))
	for _, r := range raw {
		c, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(f string) string { s, _ := c[f].(string); return s }
		ltt, _ := time.Parse(time.RFC3339, str("lastTransitionTime"))
		out = append(out, timeline.Condition{
			Type: str("type"), Status: str("status"), Reason: str("reason"),
			Message: str("message"), LastTransitionTime: ltt.UTC(),
		})
	}
	return out
}

// content is obj as JSON-shaped maps, typed or unstructured alike: nil for
// nil, and for an object that will not convert (which then has no fields).
// An unstructured object's own map is returned, not a copy.
func content(obj runtime.Object) map[string]any {
	if obj == nil {
		return nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return m
}
