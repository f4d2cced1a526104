package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestOwnerName(t *testing.T) {
	names := []string{"a", "b-a", "c1"}
	for _, tc := range []struct{ label, want string }{
		{"a", "a"},
		{"b-a", "b-a"},
		{"run7-a", "a"},
		{"run7-b-a", "b-a"},
		{"c1", "c1"},
		{"xc1", ""},
		{"", ""},
		{"other", ""},
	} {
		if got := ownerName(names, tc.label); got != tc.want {
			t.Errorf("label %q: %q, want %q", tc.label, got, tc.want)
		}
	}
}

// Each cluster is judged on its own workloads and pods: those its
// instance label names, run prefix or not.
func TestClustersApart(t *testing.T) {
	c2 := timeline.ObjectRef{Kind: kindCluster, Group: groupSamples, Namespace: ns, Name: "c2"}
	c2server := timeline.ObjectRef{Kind: kindStatefulSet, Group: groupApps, Namespace: ns, Name: "c2-server"}
	prefixed := map[string]string{labelInstance: "run7-c2", "app.kubernetes.io/component": "server"}
	// c2, labelled with the run prefix, loses a pod; c1 stays available.
	tl := func() *builder {
		return started().
			write("1m", "scenario", timeline.VerbCreate, c2, map[string]any{fieldSpec: roles()}, nil).
			write("1m", RoleOperator, timeline.VerbCreate, c2server, map[string]any{fieldReplicas: 1, fieldTemplateLabels: prefixed}, nil).
			write("1m", "workload", timeline.VerbCreate, podRef("c2-server-0"), map[string]any{fieldLabels: prefixed, fieldPhase: "Unknown"}, nil).
			write("1m", RoleOperator, timeline.VerbUpdateStatus, c2, nil, []cond{availabilityUnknown("[c2-server-0]")})
	}
	runTable(t, "STACKABLE-001", []ruleCase{
		{name: "two clusters", tl: tl(), want: reports.Pass, message: []string{"3 judged"}},
		{name: "c2's pod counted in c1",
			tl:   tl().write("2m", RoleOperator, timeline.VerbUpdateStatus, c2, nil, []cond{unavailable()}),
			want: reports.Fail, message: []string{"SampleCluster/data/c2: Available is False", "write at +2m0s"}},
	})
}
