package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// entry is one managedFields entry: a field manager and the last time it
// wrote the fields it owns through one operation and subresource.
type entry struct {
	Manager     string `json:"manager"`
	Operation   string `json:"operation"`
	Subresource string `json:"subresource"`
	Time        time.Time
	fields      []byte // fieldsV1 as the server sent it
}

// managedFields reads obj's managedFields entries.
func managedFields(obj *unstructured.Unstructured) ([]entry, error) {
	raw, found, err := unstructured.NestedSlice(obj.Object, "metadata", "managedFields")
	if err != nil {
		return nil, fmt.Errorf("metadata.managedFields: %w", err)
	}
	if !found {
		return nil, nil
	}
	out := make([]entry, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("metadata.managedFields: an entry is not an object")
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		e := entry{Manager: str("manager"), Operation: str("operation"), Subresource: str("subresource")}
		if t := str("time"); t != "" {
			if e.Time, err = time.Parse(time.RFC3339, t); err != nil {
				return nil, fmt.Errorf("metadata.managedFields: manager %s: time %q: %w", e.Manager, t, err)
			}
			e.Time = e.Time.UTC()
		}
		if f, ok := m["fieldsV1"]; ok {
			e.fields, _ = json.Marshal(f)
		}
		out = append(out, e)
	}
	return out, nil
}

// writer picks the managedFields entry of the write that turned before
// into after. The API server updates the writer's entry at each write (its
// time, to the second, and the fields it owns, which grow or stay), and
// takes the fields the write changed from the other managers (their
// entries shrink, their times stay). So, of the entries new or changed
// since the previous version, the writer's is the newest, and among
// entries of the same second one that is new, or whose time moved, or
// that did not shrink. When no entry changed (the same manager writing the
// same fields within the same second), the newest entry is taken. Last
// tie: the status subresource's entry when the write changed the status,
// another otherwise.
func writer(prev, cur []entry, before, after *unstructured.Unstructured) (entry, bool) {
	type candidate struct {
		entry
		score int // 2: new or its time moved, 1: changed without shrinking, 0: shrank
	}
	var changed []candidate
	for _, c := range cur {
		if has(prev, c) {
			continue
		}
		score := 2
		if p, ok := same(prev, c); ok && p.Time.Equal(c.Time) {
			score = 0
			if len(c.fields) >= len(p.fields) {
				score = 1
			}
		}
		changed = append(changed, candidate{c, score})
	}
	if len(changed) == 0 {
		for _, c := range cur {
			changed = append(changed, candidate{c, 0})
		}
	}
	if len(changed) == 0 {
		return entry{}, false
	}
	status := statusChanged(before, after)
	best := changed[0]
	for _, c := range changed[1:] {
		switch {
		case c.Time.After(best.Time):
			best = c
		case !c.Time.Equal(best.Time):
		case c.score > best.score:
			best = c
		case c.score == best.score && (c.Subresource == "status") == status && (best.Subresource == "status") != status:
			best = c
		}
	}
	return best.entry, true
}

// same is the entry of prev for the same manager, operation and
// subresource as e.
func same(prev []entry, e entry) (entry, bool) {
	for _, p := range prev {
		if p.Manager == e.Manager && p.Operation == e.Operation && p.Subresource == e.Subresource {
			return p, true
		}
	}
	return entry{}, false
}

// has tells whether entries holds e unchanged.
func has(entries []entry, e entry) bool {
	for _, p := range entries {
		if p.Manager == e.Manager && p.Operation == e.Operation && p.Subresource == e.Subresource &&
			p.Time.Equal(e.Time) && bytes.Equal(p.fields, e.fields) {
			return true
		}
	}
	return false
}

func statusChanged(before, after *unstructured.Unstructured) bool {
	if after == nil {
		return false
	}
	var b any
	if before != nil {
		b = before.Object["status"]
	}
	x, _ := json.Marshal(b)
	y, _ := json.Marshal(after.Object["status"])
	return !bytes.Equal(x, y)
}
