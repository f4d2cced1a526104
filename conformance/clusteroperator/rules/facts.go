package rules

import (
	"encoding/json"

	"github.com/opcert/opcert/sim/timeline"
)

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
