package sim

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// store is the run's write-through cache. Every write of a run passes
// through a recording client, which stores the server's answer here, so a
// read can be answered without a call: the simulator already knows it.
// Unlike an informer cache it is never stale, so reads cannot race writes.
type store struct {
	mu      sync.Mutex
	objects map[storeKey]client.Object // nil value: known to be absent
	// history keeps every version, for lagging views (history.go); nil
	// until one needs it.
	history map[storeKey][]version
}

type storeKey struct {
	gvk schema.GroupVersionKind
	key types.NamespacedName
}

func newStore() *store { return &store{objects: map[storeKey]client.Object{}} }

// get copies the stored object into obj. It reports whether the store knew
// the object, and whether it exists.
func (s *store) get(k storeKey, obj client.Object) (known, exists bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cached, ok := s.objects[k]
	if !ok {
		return false, false
	}
	if cached == nil {
		return true, false
	}
	src := reflect.ValueOf(cached.DeepCopyObject())
	dst := reflect.ValueOf(obj)
	if src.Type() != dst.Type() {
		return false, false
	}
	dst.Elem().Set(src.Elem())
	return true, true
}

// peek returns a copy of the stored object, nil if unknown or absent.
func (s *store) peek(k storeKey) client.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.objects[k]; o != nil {
		return o.DeepCopyObject().(client.Object)
	}
	return nil
}

func (s *store) put(k storeKey, obj runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if obj == nil {
		s.objects[k] = nil
		return
	}
	s.objects[k] = obj.DeepCopyObject().(client.Object)
}

// forget drops what the store knows of an object, so the next read asks the
// server (after a conflict, or a write that found the object gone).
func (s *store) forget(k storeKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, k)
}
