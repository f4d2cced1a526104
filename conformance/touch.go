package conformance

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Touch is something a run on a cluster (cluster mode) would do to an
// object opcert did not create: the reference detector writing a team's
// ClusterOperator, a step scaling a team's Deployment. opcert refuses such
// a run unless told --allow-disruption, listing every Touch first, and
// lets the run write to no other object it did not create
// (Mechanism.Touches says them).
type Touch struct {
	Kind            schema.GroupKind
	Namespace, Name string
	// Why says who writes it, how and when.
	Why string
}

// Object names the touched object as kubectl would.
func (t Touch) Object() string {
	kind := t.Kind.Kind
	if t.Kind.Group != "" {
		kind += "." + t.Kind.Group
	}
	if t.Namespace != "" {
		return fmt.Sprintf("%s %s/%s", kind, t.Namespace, t.Name)
	}
	return kind + " " + t.Name
}
