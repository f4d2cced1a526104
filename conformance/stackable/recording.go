package stackable

import (
	"slices"

	"github.com/opcert/opcert/record"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// recording is what a recording of seed 004 watches on a live cluster
// (opcert watch, opcert analyze of a kubectl stream): the SampleClusters,
// their workloads and the pods, with the fields the rules read
// (recordedFields, the timeline contract in rules/doc.go). The clusters
// come first, so that a recording's first list has each cluster before
// the workloads and pods its label ties to it.
//
// Whose write it is comes from its field manager, and only the managers
// named (--stackable-operator-manager) are the operator: the workloads'
// and pods' status are written by the cluster's controllers and kubelet,
// the clusters' spec and annotations by their users, and a write of a
// workload put down to the operator by mistake would fail STACKABLE-005
// while a cluster is paused. No manager name is the operator's by
// convention (ADR027 names none; a team's binary writes under its own
// name), so there is no default: a recording in which no write was put
// down to the operator proves nothing, and is NOT JUDGED, saying who
// wrote (Required).
func recording(operatorManagers []string) *record.Recording {
	managers := slices.Clone(operatorManagers)
	kinds := append([]schema.GroupVersionKind{SampleClusterGVK}, workloadGVKs...)
	return &record.Recording{
		Kinds:  append(kinds, PodGVK),
		Fields: recordedFields,
		Role: func(manager string) string {
			if slices.Contains(managers, manager) {
				return RoleOperator
			}
			return ""
		},
		Required: []string{RoleOperator},
		Hint:     "name the operator's field managers with --stackable-operator-manager",
	}
}
