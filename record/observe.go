package record

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Change is how a version of an object came to be seen.
type Change int

// Changes.
const (
	// Added, Modified and Deleted come from a watch (or a kubectl -w
	// stream): one write each.
	Added Change = iota
	Modified
	Deleted
	// Listed is an object found by the first list: written before the
	// recording began, by whoever; recorded as created by the recorder
	// itself, so that rules see its state and judge no one for it.
	Listed
	// Relisted is a version found by a list after a gap: what changed
	// while the recorder was lost, written by the field manager that wrote
	// last, at some instant in the gap.
	Relisted
)

// RecorderActor is the actor of what the recorder writes on the timeline
// itself: objects listed at its start, its own lost/resumed events.
const RecorderActor = timeline.ActorRecorder

// UnknownActor is the actor of a write whose writer managedFields does not
// name (a deletion, a server without managedFields).
const UnknownActor = "unknown"

// Observer turns the versions of objects, in the order the API server
// made them, into timeline events: the verb, the condition diff against
// the version seen before, the registered fields' changes, and who wrote
// it (its field manager, and the role the mechanism gives that manager).
// It keeps the last version of each object. It is the one place where a
// recording (watch) and a captured stream (kubectl -w) become a timeline.
type Observer struct {
	rec    *Recording
	fields map[schema.GroupKind][]string
	last   map[timeline.ObjectRef]*seen
}

// seen is what the observer keeps of an object's last version.
type seen struct {
	obj     *unstructured.Unstructured
	entries []entry
}

// NewObserver observes the kinds of rec (a mechanism's Recording).
func NewObserver(rec *Recording) *Observer {
	o := &Observer{rec: rec, fields: map[schema.GroupKind][]string{}, last: map[timeline.ObjectRef]*seen{}}
	if rec != nil {
		for gvk, paths := range rec.Fields {
			o.fields[gvk.GroupKind()] = paths
		}
	}
	return o
}

// Ref names obj as the timeline does.
func Ref(obj *unstructured.Unstructured) timeline.ObjectRef {
	gvk := obj.GroupVersionKind()
	return timeline.ObjectRef{Kind: gvk.Kind, Group: gvk.Group, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// Observe records one version of obj, seen at the instant at. ok is false
// for a version that says nothing new: an object listed again unchanged.
// Written is set for a watched write, from its writer's managedFields
// entry; Time is at.
func (o *Observer) Observe(obj *unstructured.Unstructured, how Change, at time.Time) (e timeline.Event, ok bool, err error) {
	ref := Ref(obj)
	prev := o.last[ref]
	entries, err := managedFields(obj)
	if err != nil {
		return timeline.Event{}, false, fmt.Errorf("%s: %w", ref, err)
	}
	e = timeline.Event{Time: at, Object: ref}
	var before, after *unstructured.Unstructured
	if prev != nil {
		before = prev.obj
	}
	if how != Deleted {
		after = obj
	}
	switch {
	case how == Deleted:
		e.Verb, e.Actor = timeline.VerbDelete, UnknownActor
		if prev == nil {
			before = obj // never seen alive: what the deletion removed is this
		}
	case how == Listed || (how == Relisted && prev == nil) || prev == nil && how != Added:
		e.Verb, e.Actor = timeline.VerbCreate, RecorderActor
		e.Detail = "listed: written before the recording began"
		if how == Relisted {
			e.Detail = "listed after a recording gap: created while the recorder was lost"
		}
	default:
		w, found := writer(prevEntries(prev), entries, before, after)
		e.Actor, e.Verb = UnknownActor, timeline.VerbUpdate
		if prev == nil {
			e.Verb = timeline.VerbCreate
		}
		if found {
			e.Actor = cmp.Or(w.Manager, UnknownActor)
			if w.Subresource == "status" && prev != nil {
				e.Verb = timeline.VerbUpdateStatus
			}
			if how != Relisted {
				e.Written = w.Time
			}
		}
		if how == Relisted {
			e.Detail = "seen on a list after a recording gap: written while the recorder was lost"
			if sameVersion(before, after) {
				return timeline.Event{}, false, nil
			}
		}
	}
	if e.Actor != RecorderActor && e.Actor != UnknownActor && o.rec != nil && o.rec.Role != nil {
		e.Role = o.rec.Role(e.Actor)
	}
	e.Conditions = timeline.Diff(conditions(before), conditions(after))
	if paths := o.fields[groupKind(ref)]; len(paths) > 0 {
		if e.Fields, err = sim.FieldChanges(paths, nilIfNone(before), nilIfNone(after)); err != nil {
			return timeline.Event{}, false, err
		}
	}
	if how == Deleted {
		delete(o.last, ref)
	} else {
		o.last[ref] = &seen{obj: obj, entries: entries}
	}
	return e, true, nil
}

// Forget drops what the observer knows of objects not in keep: after a
// relist, those were deleted while the recorder was lost.
func (o *Observer) Forget(gk schema.GroupKind, keep map[timeline.ObjectRef]bool, at time.Time) ([]timeline.Event, []*unstructured.Unstructured) {
	var gone []timeline.ObjectRef
	for ref := range o.last {
		if groupKind(ref) == gk && !keep[ref] {
			gone = append(gone, ref)
		}
	}
	slices.SortFunc(gone, compareRefs)
	out := make([]timeline.Event, 0, len(gone))
	objs := make([]*unstructured.Unstructured, 0, len(gone))
	for _, ref := range gone {
		prev := o.last[ref]
		delete(o.last, ref)
		objs = append(objs, prev.obj)
		out = append(out, timeline.Event{Time: at, Actor: UnknownActor, Verb: timeline.VerbDelete, Object: ref,
			Conditions: timeline.Diff(conditions(prev.obj), nil),
			Detail:     "gone on a list after a recording gap: deleted while the recorder was lost"})
	}
	return out, objs
}

func compareRefs(a, b timeline.ObjectRef) int {
	for _, p := range [][2]string{{a.Group, b.Group}, {a.Kind, b.Kind}, {a.Namespace, b.Namespace}, {a.Name, b.Name}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func prevEntries(s *seen) []entry {
	if s == nil {
		return nil
	}
	return s.entries
}

func conditions(obj *unstructured.Unstructured) []timeline.Condition {
	if obj == nil {
		return nil
	}
	return sim.Conditions(obj)
}

// nilIfNone keeps a nil object a nil interface for FieldChanges.
func nilIfNone(obj *unstructured.Unstructured) runtime.Object {
	if obj == nil {
		return nil
	}
	return obj
}

func groupKind(ref timeline.ObjectRef) schema.GroupKind {
	return schema.GroupKind{Group: ref.Group, Kind: ref.Kind}
}

// sameVersion tells whether two versions are one (same resourceVersion).
func sameVersion(a, b *unstructured.Unstructured) bool {
	return a != nil && b != nil && a.GetResourceVersion() == b.GetResourceVersion()
}
