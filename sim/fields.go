package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/sim/timeline"
)

// A mechanism whose rules judge more of an object than its conditions
// (annotations, versions, replica counts) registers those fields for the
// kind, and every write of that kind carries their changes on its event.
// Kinds without registrations cost nothing more per write than they did.

// fieldPath is a registered path: its keys into the object as JSON, and the
// canonical spelling recorded on the timeline.
type fieldPath struct {
	text string
	keys []string
}

// varying are fields the API server fills from its wall clock or at
// random. A path reaching into or over one of them would make two runs of
// one scenario give two timelines, so RecordFields refuses it.
var varying = [][]string{
	{"metadata", "creationTimestamp"},
	{"metadata", "deletionTimestamp"},
	{"metadata", "managedFields"},
	{"metadata", "ownerReferences"},
	{"metadata", "resourceVersion"},
	{"metadata", "uid"},
}

// RecordFields registers paths of objects of kind gvk whose changes every
// write records on its event (timeline.Event.Fields), sorted by path.
//
// A path is dotted keys into the object as JSON, with a key that holds dots
// in brackets: "spec.replicas", "status.versions", "metadata.annotations",
// "metadata.annotations[startup-monitor.static-pods.openshift.io/fallback-reason]".
// It names a whole value, a map or a list included; a list is compared as a
// whole, so reordering it is a change (conditions, compared by type, are
// not). A path into a list element is not supported. Values are recorded as
// the API server holds them: names inside them keep the run prefix.
// Registering a path twice, or under two spellings, records it once.
func (s *Scheduler) RecordFields(gvk schema.GroupVersionKind, paths ...string) error {
	var add []fieldPath
	for _, p := range paths {
		fp, err := parsePath(p)
		if err != nil {
			return fmt.Errorf("record fields of %s: %w", gvk.Kind, err)
		}
		add = append(add, fp)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A new slice each time: the recording client reads the old one unlocked.
	all := append(slices.Clone(s.fields[gvk]), add...)
	slices.SortFunc(all, func(a, b fieldPath) int { return strings.Compare(a.text, b.text) })
	s.fields[gvk] = slices.CompactFunc(all, func(a, b fieldPath) bool { return a.text == b.text })
	return nil
}

// fieldPaths returns the paths registered for gvk, sorted; the caller must
// not change the slice.
func (s *Scheduler) fieldPaths(gvk schema.GroupVersionKind) []fieldPath {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fields[gvk]
}

// parsePath reads "a.b[c.d].e" as the keys a, b, c.d, e and spells it back
// canonically, brackets only around keys that hold a dot.
func parsePath(p string) (fieldPath, error) {
	var keys []string
	for rest := p; ; {
		var key string
		if after, ok := strings.CutPrefix(rest, "["); ok {
			end := strings.IndexByte(after, ']')
			if end < 0 {
				return fieldPath{}, fmt.Errorf("path %q: %q has no closing bracket", p, rest)
			}
			key, rest = after[:end], after[end+1:]
		} else {
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key, rest = rest[:end], rest[end:]
		}
		if key == "" || strings.ContainsAny(key, "[]") {
			return fieldPath{}, fmt.Errorf("path %q: empty key or bracket inside a key (a key that holds dots goes in brackets: metadata.annotations[example.com/name])", p)
		}
		keys = append(keys, key)
		if rest == "" {
			break
		}
		if after, ok := strings.CutPrefix(rest, "."); ok {
			rest = after
		} else if !strings.HasPrefix(rest, "[") {
			return fieldPath{}, fmt.Errorf("path %q: a dot or a bracket must follow a bracketed key", p)
		}
	}
	for _, v := range varying {
		n := min(len(v), len(keys))
		if slices.Equal(v[:n], keys[:n]) {
			return fieldPath{}, fmt.Errorf("path %q: %s is set by the API server and differs from run to run", p, strings.Join(v, "."))
		}
	}
	var b strings.Builder
	for i, k := range keys {
		switch {
		case strings.Contains(k, "."):
			fmt.Fprintf(&b, "[%s]", k)
		case i > 0:
			fmt.Fprintf(&b, ".%s", k)
		default:
			b.WriteString(k)
		}
	}
	return fieldPath{text: b.String(), keys: keys}, nil
}

// fieldChanges lists the registered fields that differ between before and
// after (nil for an object that did not or no longer exists), in the order
// of paths.
func fieldChanges(paths []fieldPath, before, after runtime.Object) []timeline.FieldChange {
	if len(paths) == 0 {
		return nil
	}
	b, a := content(before), content(after)
	var out []timeline.FieldChange
	for _, p := range paths {
		was, is := fieldJSON(b, p), fieldJSON(a, p)
		if !bytes.Equal(was, is) {
			out = append(out, timeline.FieldChange{Path: p.text, Before: was, After: is})
		}
	}
	return out
}

// fieldJSON is the value at p as JSON, map keys sorted; nil if absent (the
// path runs through something that is not a map, too).
func fieldJSON(obj map[string]any, p fieldPath) json.RawMessage {
	v, found, err := unstructured.NestedFieldNoCopy(obj, p.keys...)
	if !found || err != nil {
		return nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		// Only a value JSON cannot hold (a NaN) gets here: say so rather
		// than record the field as absent.
		out, _ = json.Marshal("unrecordable: " + err.Error())
	}
	return out
}

// FieldChanges lists the changes of the registered paths between two
// versions of an object (nil for one that did not or no longer exists), as
// the recording client records them: for recorders outside the simulator
// (opcert watch), which see versions rather than make writes.
func FieldChanges(paths []string, before, after runtime.Object) ([]timeline.FieldChange, error) {
	fps := make([]fieldPath, 0, len(paths))
	for _, p := range paths {
		fp, err := parsePath(p)
		if err != nil {
			return nil, err
		}
		fps = append(fps, fp)
	}
	slices.SortFunc(fps, func(a, b fieldPath) int { return strings.Compare(a.text, b.text) })
	return fieldChanges(slices.CompactFunc(fps, func(a, b fieldPath) bool { return a.text == b.text }), before, after), nil
}
