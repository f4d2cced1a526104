package clusteroperator

import (
	"github.com/opcert/opcert/record"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// roleDetector is the role of seed 000's stale detector, whose challenges
// a cluster may also hold: its writes are not the operator's, and no CO
// rule judges them (rules/doc.go: writes of other roles, a detector's,
// are not judged).
const roleDetector = "detector"

// otherManagers are the field managers that write ClusterOperators
// without being their operators, when a live cluster is recorded (opcert
// watch, opcert analyze of a kubectl stream), and their roles: the
// upstream cluster-version operator's own manager (docs/upstream.md, seed
// 001), and the stale detector's as opcert's stale mechanism names it by
// default (seed 000's detector never shipped upstream).
var otherManagers = map[string]string{
	"cluster-version-operator": RoleVersionOperator,
	"stale-detector":           roleDetector,
}

// recording is what a recording of seed 001 watches on a live cluster:
// ClusterOperators, with status.versions, the field the version operator
// waits on (001 §How ClusterVersionOperator handles ClusterOperator in
// release image) and the rules read (rules/doc.go). The operands, pods and
// admin's ConfigMaps of opcert's world are not recorded: a cluster's
// components keep theirs where and as they like, and every Pod of a
// cluster would be a watch of everything for rules that skip a component
// with no operand on the timeline. What a recording judges is then the
// ClusterOperators' own writes: their conditions and messages (CO-020 to
// CO-025) and what the contract rules can read without operands.
//
// Whose write it is comes from its field manager: every manager but those
// of otherManagers is the operator role, since a ClusterOperator's status
// is its operator's to write (001 §How ClusterVersionOperator handles
// ClusterOperator in release image: "creating and updating it is the
// responsibility of the respective operator").
func recording() *record.Recording {
	return &record.Recording{
		Kinds:  []schema.GroupVersionKind{ClusterOperatorGVK},
		Fields: map[schema.GroupVersionKind][]string{ClusterOperatorGVK: recordedFields[ClusterOperatorGVK]},
		Role: func(manager string) string {
			if role, ok := otherManagers[manager]; ok {
				return role
			}
			return RoleOperator
		},
	}
}
