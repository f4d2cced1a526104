package stackable_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/conformance/stackable/stackabletest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 004 (cluster/doc.go): the example
// stackable operator (examples/stackableoperator: client-go, nothing of
// opcert) deployed by examples/stackableoperator/deploy.yaml, one
// Deployment watching every namespace, plays the operator, the run
// reaching the server as a cluster (conformancetest.PlayCluster) as a
// user bound only to the shipped roles;
// clustertest's Kubelet runs its binary while the Deployment has
// replicas, and stackablePods plays the cluster's controllers and kubelet
// for the workloads it writes. opcert run's own part (its flags, the
// rights it checks first) is cmd/opcert's to test.

// stackable-steady on the cluster: the example's Deployment passes the
// STACKABLE rules, the status is the operator's and the workloads' the
// cluster's, and the cluster is left as found.
func TestClusterModeCertifiesTheStackableOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/stackableoperator/cmd/stackableoperator")
	tm := stackabletest.Deploy(t, api, bin)
	pods := &stackablePods{c: tm.Admin, pace: 1500 * time.Millisecond, born: map[string]time.Time{}} // the scenarios' 30s at 0.05
	t.Cleanup(clustertest.Every(50*time.Millisecond, pods.sync))
	// opcert's user has only what the shipped roles grant.
	tm.Bind(t, "opcert-stackable", true)
	user := clustertest.User(t, api, "opcert-stackable-runner", "opcert-stackable")
	before := tm.State(t, false)
	run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), stackable.Mechanism(stackable.DefaultConfig()), "stackable-steady",
		map[string]string{stackable.RoleOperator: "deployment:" + stackabletest.Namespace + "/stackableoperator"}, 0.05)
	conformancetest.Certified(t, run, "STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-007", "EXPECT")
	for _, c := range run.Cases {
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
		}
	}
	if t.Failed() {
		t.Log(tm.Kubelet.Logs())
	}
	// The status is the operator's; the workloads' status and the pods the
	// cluster's.
	writers := conformancetest.Writers(tl, func(e timeline.Event) string {
		if e.Object.Kind == "Namespace" || e.Actor == "scenario" {
			return ""
		}
		return e.Actor + " " + e.Role + " " + e.Object.Kind + " " + e.Verb
	})
	for _, w := range []string{"operator operator SampleCluster update-status", "operator operator StatefulSet create",
		"cluster workload StatefulSet update-status", "cluster workload Pod create"} {
		if !slices.Contains(writers, w) {
			t.Errorf("no write %q on the timeline: %v", w, writers)
		}
	}
	if len(run.Processes) != 1 || !strings.Contains(strings.Join(run.Processes[0].Endings, "; "), "left at 1 replicas") {
		t.Errorf("the report says of the Deployment: %+v", run.Processes)
	}
	waitState(t, tm, before)
}

// waitState waits for the state to be want: the cluster's garbage
// collection (stackablePods here) follows the run's cleanup.
func waitState(t *testing.T, tm *stackabletest.Team, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := tm.State(t, false)
		if slices.Equal(got, want) || time.Now().After(deadline) {
			clustertest.SameState(t, want, got)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
