package staticpod

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/record"
)

// recordedKinds are the API objects of seed 003's world, in the order a
// run records their fields: the mirror pods the kubelet writes, and the
// operator's ClusterOperator.
var recordedKinds = []schema.GroupVersionKind{PodGVK, ClusterOperatorGVK}

// recordedFields are what the rules read of them beside conditions (the
// timeline contract in rules/doc.go): a mirror pod's revision and
// fallback annotations, its phase and its containers' last termination;
// the operator's asks, in its durable status (operator.go).
var recordedFields = map[schema.GroupVersionKind][]string{
	PodGVK:             {"metadata.annotations", "status.containerStatuses", "status.phase"},
	ClusterOperatorGVK: {"status.extension.nodeStatuses"},
}

// recording is what a recording of seed 003 watches through the API: the
// mirror pods and the operator's ClusterOperator, whatever else the
// seed's world does on the nodes' disks. On a recording, then, the rules
// of the operator's condition (STATICPOD-008, STATICPOD-015) judge the
// fallbacks the mirror pods show; every rule that reads a node's files,
// its operand's probes or its actors' processes (STATICPOD-001 to 007,
// 009 to 014) is not judged, and says why (rules.Config.fromNode). The
// Pods of every namespace are watched unless the watch is given one
// (opcert watch --namespace): the rules read only the mirror pods of
// openshift-kube-apiserver.
//
// Whose write it is comes from its field manager: the kubelet's (its own
// name, "kubelet", or opcert's "kubelet/NODE") are the kubelet role's;
// every other manager is the operator role, since the ClusterOperator's
// status is its operator's to write (001 §How ClusterVersionOperator
// handles ClusterOperator in release image), and the only other writer of
// a mirror pod is the kubelet that mirrors it.
func recording() *record.Recording {
	return &record.Recording{
		Kinds:  recordedKinds,
		Fields: recordedFields,
		Role: func(manager string) string {
			if manager == RoleKubelet || strings.HasPrefix(manager, RoleKubelet+"/") {
				return RoleKubelet
			}
			return RoleOperator
		},
	}
}
