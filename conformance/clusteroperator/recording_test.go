package clusteroperator_test

import (
	"slices"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
)

// A recording of seed 001 watches ClusterOperators only (never a
// cluster's Pods), with the versions the version operator waits on, and
// files the upstream version operator's writes under its role, the stale
// detector's under its own, and everyone else's under the operator's; the
// mechanism given a recording's tolerance, or scaled, records alike.
func TestRecording(t *testing.T) {
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	for name, m := range map[string]conformance.Mechanism{
		"as registered":    m,
		"with a tolerance": m.(conformance.Tolerant).WithTolerance(2 * time.Second),
		"scaled":           m.(conformance.Scalable).Scaled(0.01),
	} {
		rec := conformance.RecordingOf(m)
		if rec == nil {
			t.Fatalf("%s: no recording", name)
		}
		if len(rec.Kinds) != 1 || rec.Kinds[0] != clusteroperator.ClusterOperatorGVK {
			t.Errorf("%s: kinds %v, want ClusterOperators only", name, rec.Kinds)
		}
		if rec.Records(clusteroperator.PodGVK.GroupKind()) {
			t.Errorf("%s: records Pods", name)
		}
		if f := rec.Fields[clusteroperator.ClusterOperatorGVK]; !slices.Equal(f, []string{"status.versions"}) {
			t.Errorf("%s: fields %v, want status.versions", name, f)
		}
		for _, tc := range []struct{ manager, role string }{
			{"cluster-version-operator", clusteroperator.RoleVersionOperator},
			{"ingress-operator", clusteroperator.RoleOperator},
			{"kubectl-edit", clusteroperator.RoleOperator},
			{"stale-detector", "detector"},
		} {
			if got := rec.Role(tc.manager); got != tc.role {
				t.Errorf("%s: manager %s has role %q, want %q", name, tc.manager, got, tc.role)
			}
		}
	}
}
