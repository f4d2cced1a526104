package rules

import (
	"encoding/json"
	"slices"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// writesKey is the key of the operator's ClusterOperator writes among a
// judging's facts: every rule reads the same list.
type writesKey struct{}

// operatorWrites are the timeline's writes of a ClusterOperator by the
// operator role, in order; deletions carry no conditions and are left
// out. They are the contract's (contractOf), merged across components in
// timeline order, so that a streamed timeline keeps them once.
func operatorWrites(j *judge.Judging) []timeline.Event {
	return judge.Facts(j, writesKey{}, func([]timeline.Event) []timeline.Event {
		var ws []coWrite
		for _, x := range contractOf(j).components {
			ws = append(ws, x.mine()...)
		}
		slices.SortFunc(ws, func(a, b coWrite) int { return a.pos - b.pos })
		out := make([]timeline.Event, 0, len(ws))
		for _, w := range ws {
			out = append(out, w.ev)
		}
		return out
	})
}

// version is one entry of status.versions (001 §Version).
type version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// operatorVersionMoved tells whether e changes the version named operator
// in status.versions (added, removed or changed). A timeline that does not
// record the field says nothing moved.
func operatorVersionMoved(e timeline.Event) bool {
	for _, f := range e.Fields {
		if f.Path == fieldVersions {
			before, hadBefore := operatorVersionIn(f.Before)
			after, hasAfter := operatorVersionIn(f.After)
			return before != after || hadBefore != hasAfter
		}
	}
	return false
}

// operatorVersionIn is the operator entry's version in a recorded value of
// status.versions, and whether it has one.
func operatorVersionIn(raw json.RawMessage) (string, bool) {
	var list []version
	if len(raw) == 0 || json.Unmarshal(raw, &list) != nil {
		return "", false
	}
	for _, v := range list {
		if v.Name == operatorVersion {
			return v.Version, true
		}
	}
	return "", false
}
