package stale

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/conformance/stale/rules"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim"
)

// DefaultDetectorManagers are the field managers taken for the detector
// when a live cluster is recorded (opcert watch, opcert analyze of a
// kubectl stream) and --detector-manager is not given: opcert's own
// detector's (sim.FieldManager: what a watch of a run on opcert's API
// server sees), and stale-detector. Seed 000's detector never shipped
// upstream (docs/upstream.md: the deadman attempts ran inside
// cluster-kube-apiserver-operator, whose own ClusterOperator writes share
// that manager name), so no upstream name can be the default: a detector
// run for recording names itself stale-detector, and any other is named
// with the flag.
var DefaultDetectorManagers = []string{sim.FieldManager, "stale-detector"}

// recording is what a recording of seed 000 watches: ClusterOperators.
// Whose write it is comes from the write's field manager: one of the
// detector's managers is the detector; every other manager (an operator,
// the cluster-version operator, a person's kubectl) is the operator role,
// since a write by anyone but the detector that moves a watched condition
// is movement (000 §Proposal ¶5), whoever made it.
func recording(detectorManagers []string) *record.Recording {
	managers := slices.Clone(detectorManagers)
	return &record.Recording{
		Kinds: []schema.GroupVersionKind{ClusterOperatorGVK},
		Role: func(manager string) string {
			if slices.Contains(managers, manager) {
				return RoleDetector
			}
			return RoleOperator
		},
		Required: []string{RoleDetector},
		Hint:     "name the detector's field managers with --detector-manager",
	}
}

// Recording: a recording of seed 000 (recording).
func (m *mechanism) Recording() *record.Recording { return recording(m.detectorManagers) }

// Online are the STALE facts, read as events pass.
func (m *mechanism) Online() []judge.Online { return []judge.Online{rules.Online(m.cfg)} }
