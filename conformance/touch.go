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
// (Clustered.Touches says them).
type Touch struct {
	// Kind is the touched object's group and kind.
	Kind schema.GroupKind
	// Namespace and Name name the object ("" namespace: cluster-wide).
	Namespace, Name string
	// Why says who writes it, how and when.
	Why string
	// Made is an object the run's subjects make (an operand its operator
	// creates): it may not exist yet when the run starts.
	Made bool
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

// Access is a right a run on a cluster needs beyond what every run has
// checked for it (cluster.Needs: the kind the mechanism works on, Expects;
// the scale of its Deployment subjects): Verbs on Kind's resource (its
// Subresource, if set) in Namespace, "" meaning cluster-wide. The cluster
// must serve Kind; Role names the ClusterRole of config/rbac that grants
// it, which a missing right's message names. opcert checks every Access
// before it writes anything.
type Access struct {
	// Kind is the group, version and kind the access is to.
	Kind schema.GroupVersionKind
	// Subresource is the subresource ("status"), empty for the object itself.
	Subresource string
	// Namespace is where the access is needed; empty: cluster-wide.
	Namespace string
	// Verbs are the API verbs needed (get, list, watch, update, ...).
	Verbs []string
	// Role names the ClusterRole of config/rbac that grants the access.
	Role string
}
