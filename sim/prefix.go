package sim

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The run prefix keeps runs that share one API server apart. The harness
// applies it, not the mechanisms: actors, scenario steps, the store, watches
// and the timeline all use the scenario's own names, and the recording
// client adds the prefix on the way to the API server and takes it off on
// the way back. It is applied to every object's name, except names a
// mechanism registers as fixed by its seed (FixNames), and to an object's
// namespace when the run created that namespace. Names held inside objects
// (owner references, spec fields) are not rewritten.

var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// FixNames says the names of kind gk are fixed by the seed (a mirror pod's,
// a well-known namespace): they reach the API server as given. With no
// names, every object of the kind keeps its name.
func (s *Scheduler) FixNames(gk schema.GroupKind, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fixed == nil {
		s.fixed = map[schema.GroupKind]map[string]bool{}
	}
	if s.fixed[gk] == nil {
		s.fixed[gk] = map[string]bool{}
	}
	if len(names) == 0 {
		s.fixed[gk][""] = true
	}
	for _, n := range names {
		s.fixed[gk][n] = true
	}
}

func (s *Scheduler) prefixed(gk schema.GroupKind, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fixed[gk]
	return s.Prefix != "" && name != "" && !f[""] && !f[name]
}

// ownNamespace remembers a namespace the run created; objects in it follow
// its prefixed name.
func (s *Scheduler) ownNamespace(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.namespaces == nil {
		s.namespaces = map[string]bool{}
	}
	s.namespaces[name] = true
}

func (s *Scheduler) inOwnNamespace(ns string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.namespaces[ns]
}

// serverKey is where the object of the scenario's key is on the server.
func (s *Scheduler) serverKey(gk schema.GroupKind, key types.NamespacedName) types.NamespacedName {
	if key.Namespace != "" && s.inOwnNamespace(key.Namespace) {
		key.Namespace = s.Prefix + key.Namespace
	}
	if s.prefixed(gk, key.Name) {
		key.Name = s.Prefix + key.Name
	}
	return key
}

// toServer renames obj, in place, as the server will hold it.
func (s *Scheduler) toServer(gk schema.GroupKind, obj client.Object) {
	key := s.serverKey(gk, client.ObjectKeyFromObject(obj))
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	if obj.GetName() == "" && obj.GetGenerateName() != "" && s.prefixed(gk, obj.GetGenerateName()) {
		obj.SetGenerateName(s.Prefix + obj.GetGenerateName())
	}
}

// toLocal renames obj, in place, as the scenario knows it. It reports
// whether obj belongs to this run (an object listed from the server may be
// another run's).
func (s *Scheduler) toLocal(gk schema.GroupKind, obj client.Object) bool {
	ours := true
	if ns := obj.GetNamespace(); ns != "" {
		if local, ok := strings.CutPrefix(ns, s.Prefix); ok && s.Prefix != "" && s.inOwnNamespace(local) {
			obj.SetNamespace(local)
		}
	}
	if gen, ok := strings.CutPrefix(obj.GetGenerateName(), s.Prefix); ok && s.Prefix != "" {
		obj.SetGenerateName(gen)
	}
	if s.Prefix == "" {
		return true
	}
	if local, ok := strings.CutPrefix(obj.GetName(), s.Prefix); ok && s.prefixed(gk, local) {
		obj.SetName(local)
	} else if s.prefixed(gk, obj.GetName()) {
		ours = false // a prefixed kind without this run's prefix
	}
	return ours
}

// localList renames the items of a list from the server and drops the
// ones of other runs.
func (s *Scheduler) localList(gk schema.GroupKind, list client.ObjectList) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kept := items[:0]
	for _, it := range items {
		if obj, ok := it.(client.Object); ok && s.toLocal(gk, obj) {
			kept = append(kept, it)
		}
	}
	return meta.SetList(list, append([]runtime.Object(nil), kept...))
}
