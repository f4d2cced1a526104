package record

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Recording is what a mechanism needs recorded of a live API server
// (opcert watch, opcert analyze of a kubectl watch stream): the kinds its
// rules read, the fields it registers beyond conditions, and the role of
// each field manager. The recorder is mechanism-neutral; everything it
// must know of a mechanism is here.
type Recording struct {
	// Kinds are listed and watched; their writes go on the timeline.
	Kinds []schema.GroupVersionKind
	// Fields are the paths whose changes each write of a kind carries, as
	// the simulator's RecordFields takes them.
	Fields map[schema.GroupVersionKind][]string
	// Role names the role of a field manager (the actor of a recorded
	// write), as the mechanism's rules read roles; "" for none. On a live
	// cluster the field manager is the only name a write carries.
	Role func(manager string) string
	// Required are the roles a recording proves nothing without: one in
	// which no write was put down to such a role is NOT JUDGED, saying so
	// and who wrote (stale's detector: a watch whose detector writes
	// under a manager the flags do not name would pass vacuously).
	Required []string
	// Hint says how to name a required role's field managers (a flag), for
	// a recording that saw none of its writes.
	Hint string
}

// Records tells whether the mechanism records objects of gk.
func (r *Recording) Records(gk schema.GroupKind) bool {
	if r == nil {
		return false
	}
	for _, k := range r.Kinds {
		if k.GroupKind() == gk {
			return true
		}
	}
	return false
}
