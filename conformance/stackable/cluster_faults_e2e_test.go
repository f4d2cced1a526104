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

// stackable-pod-failed on the cluster (clusterpods.go): failPod lowers
// the pod's activeDeadlineSeconds, the stand-in's kubelet fails it and
// its StatefulSet deletes it and makes it again, and the example operator
// passes every STACKABLE rule it is judged by, as a user bound only to the
// shipped roles; no expectation fails, those the failed pod's quick
// replacement leaves unmet are said not owed, and the cluster is left as
// found. A small load's random failures are made the same way.
func TestClusterModeFailsAStackablePod(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/stackableoperator/cmd/stackableoperator")
	tm := stackabletest.Deploy(t, api, bin)
	pods := &stackablePods{c: tm.Admin, pace: 600 * time.Millisecond, born: map[string]time.Time{}} // the scenarios' 30s at 0.02
	t.Cleanup(clustertest.Every(50*time.Millisecond, pods.sync))
	tm.Bind(t, "opcert-stackable-faults", true)
	user := clustertest.User(t, api, "opcert-stackable-faults-runner", "opcert-stackable-faults")
	before := tm.State(t, false)
	run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), stackable.Mechanism(stackable.DefaultConfig()), "stackable-pod-failed",
		map[string]string{stackable.RoleOperator: "deployment:" + stackabletest.Namespace + "/stackableoperator"}, 0.02)
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Fatalf("error %q, stopped %q, not judged %q\n%s", run.Error, run.Stopped, run.NotJudged, tm.Kubelet.Logs())
	}
	conformancetest.Certified(t, run, "STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-007")
	for _, c := range run.Cases {
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("%s: %s %s", c.Rule, c.Status, c.Message)
		}
		if c.Rule == "EXPECT" && !strings.Contains(c.Message, "2 steps played as the cluster plays them (first, ") {
			t.Errorf("the EXPECT case does not say how the steps played: %s", c.Message)
		}
	}
	// The step's patch, the kubelet's Failed, the StatefulSet's deletion
	// and the pod made again, in that order, all of simple-server-1.
	var story []string
	for _, e := range tl.Events() {
		if e.Object.Kind != "Pod" || e.Object.Name != "simple-server-1" || !e.IsWrite() {
			continue
		}
		switch f, _ := e.Field("status.phase"); {
		case e.Actor == "scenario":
			story = append(story, "scenario "+e.Verb)
		case e.Verb == timeline.VerbDelete, e.Verb == timeline.VerbCreate:
			story = append(story, e.Verb)
		case string(f.After) == `"Failed"`:
			story = append(story, "Failed")
		}
	}
	if want := []string{"create", "scenario update", "Failed", "delete", "create"}; !slices.Equal(story, want) {
		t.Errorf("simple-server-1's writes: %v, want %v", story, want)
	}
	unlike := 0
	for _, e := range tl.Events() {
		if e.Verb == timeline.VerbUnlike {
			unlike++
		}
	}
	if unlike != 2 {
		t.Errorf("%d steps played unlike the simulated world, want 2 (failPod, recoverPod)", unlike)
	}
	if t.Failed() {
		t.Log(tm.Kubelet.Logs())
	}
	waitState(t, tm, before)

	// A load's failures, made the same way: pods patched by the run, failed
	// by the kubelet, the rules passed.
	run, tl, _ = conformancetest.PlayCluster(t, user, prefix(), stackable.Mechanism(stackable.DefaultConfig()), "testdata/load-on-cluster.yaml",
		map[string]string{stackable.RoleOperator: "deployment:" + stackabletest.Namespace + "/stackableoperator"}, 0.02)
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Fatalf("the load: error %q, stopped %q, not judged %q", run.Error, run.Stopped, run.NotJudged)
	}
	conformancetest.Certified(t, run, "STACKABLE-001", "STACKABLE-002", "STACKABLE-003")
	for _, c := range run.Cases {
		if c.Status != reports.Pass && c.Status != reports.Skip {
			t.Errorf("the load: %s: %s %s", c.Rule, c.Status, c.Message)
		}
	}
	patched, failed := 0, 0
	for _, e := range tl.Events() {
		f, _ := e.Field("status.phase")
		switch {
		case e.Object.Kind != "Pod" || !e.IsWrite():
		case e.Actor == "scenario":
			patched++
		case string(f.After) == `"Failed"`:
			failed++
		}
	}
	if failed == 0 || failed > patched {
		t.Errorf("the load: %d pods given a deadline, %d failed, want at least one, each given one", patched, failed)
	}
	waitState(t, tm, before)
}
