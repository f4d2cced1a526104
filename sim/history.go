package sim

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The store's history answers the reads of an actor whose view lags
// (View.Lag): every version of every object the run wrote or read since
// a lagging window first started, with the instant it became the one the
// API server held. It is kept only from then on, and only in runs that
// lag a view, so other runs pay nothing for it.

// version is one state of an object: nil when absent. seen marks a state
// the history began with (what the store knew when it started, or a first
// read): the object was so at that instant, and as far as the run knows
// before it.
type version struct {
	at   time.Time
	obj  client.Object
	seen bool
}

// keepHistory starts keeping versions (once), the objects known now as
// they were at now or before.
func (s *store) keepHistory(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.history != nil {
		return
	}
	s.history = map[storeKey][]version{}
	for k, o := range s.objects {
		v := version{at: now, seen: true}
		if o != nil {
			v.obj = o.DeepCopyObject().(client.Object)
		}
		s.history[k] = []version{v}
	}
}

// note keeps obj (nil: deleted) as the version of k a write made at at,
// when the history is kept.
func (s *store) note(k storeKey, at time.Time, obj client.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.history == nil {
		return
	}
	v := version{at: at}
	if obj != nil {
		v.obj = obj.DeepCopyObject().(client.Object)
	}
	s.history[k] = append(s.history[k], v)
}

// noteRead keeps obj, read from the API server at at, as the first
// version of an object the history knew nothing of.
func (s *store) noteRead(k storeKey, at time.Time, obj client.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.history == nil || len(s.history[k]) > 0 {
		return
	}
	s.history[k] = []version{{at: at, obj: obj.DeepCopyObject().(client.Object), seen: true}}
}

// at is the version of k at t: the last one from before t; before the
// first, the first if it was read (the object was there, the run knows
// no older state of it), else absence. known is false when the history
// has nothing of k: the current state is all there is.
func (s *store) at(k storeKey, t time.Time) (obj client.Object, known bool) {
	vs := s.history[k]
	if len(vs) == 0 {
		return nil, false
	}
	for i := len(vs) - 1; i >= 0; i-- {
		if !vs[i].at.After(t) {
			return vs[i].obj, true
		}
	}
	if vs[0].seen {
		return vs[0].obj, true
	}
	return nil, true
}

// asOf copies the version of k at t into obj, as get does the current one.
func (s *store) asOf(k storeKey, t time.Time, obj client.Object) (known, exists bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, known := s.at(k, t)
	if !known || old == nil {
		return known, false
	}
	src, dst := reflect.ValueOf(old.DeepCopyObject()), reflect.ValueOf(obj)
	if src.Type() != dst.Type() {
		return false, false
	}
	dst.Elem().Set(src.Elem())
	return true, true
}

// listAsOf turns a list the API server gave now into the list as of t:
// each item the history knows as it was then, or left out if it did not
// exist then. An object deleted since t is missing all the same: the
// server no longer lists it and the history cannot tell it from one the
// run never saw.
func (s *store) listAsOf(gvk schema.GroupVersionKind, t time.Time, list client.ObjectList) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	s.mu.Lock()
	out := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		o, ok := item.(client.Object)
		if !ok {
			out = append(out, item)
			continue
		}
		old, known := s.at(storeKey{gvk, client.ObjectKeyFromObject(o)}, t)
		switch {
		case !known:
			out = append(out, item)
		case old != nil:
			out = append(out, old.DeepCopyObject())
		}
	}
	s.mu.Unlock()
	return meta.SetList(list, out)
}
