package clusteroperator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/clusteroperator/clusteroperatortest"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/reports"
)

// co-operand-stuck on the cluster (held.go): stickOperand pauses etcd's
// Deployment, so the operator's rollout to 4.0.1 never moves a pod (the
// stand-in rolls nothing out while paused, as the Deployment controller);
// the example operator keeps reporting 4.0.0, Progressing, then Degraded,
// the version operator waits at etcd, and every CO rule and expectation
// passes, as a user bound only to the shipped roles; at the end etcd's
// Deployment is unpaused, as found.
func TestClusterModeHoldsAnOperandsRollout(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/componentoperator/cmd/componentoperator")
	tm := clusteroperatortest.Deploy(t, api, bin)
	admin := tm.Admin
	pods := &operandPods{c: admin, ns: componentsNS, born: map[string]time.Time{}}
	t.Cleanup(clustertest.Every(50*time.Millisecond, pods.sync))
	tm.Bind(t, "opcert-co-held", true)
	user := clustertest.User(t, api, "opcert-co-held-runner", "opcert-co-held")
	before := tm.State(t, false)
	run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), clusteroperator.Mechanism(clusteroperator.DefaultConfig()), "co-operand-stuck",
		map[string]string{clusteroperator.RoleOperator: "deployment:" + componentsNS + "/{name}-operator"}, 0.01)
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Fatalf("error %q, stopped %q, not judged %q\n%s", run.Error, run.Stopped, run.NotJudged, tm.Kubelet.Logs())
	}
	for _, cs := range run.Cases {
		if cs.Status != reports.Pass && cs.Status != reports.Skip {
			t.Errorf("%s: %s %s", cs.Rule, cs.Status, cs.Message)
		}
	}
	conformancetest.Certified(t, run, "CO-001", "CO-002", "CO-008", "EXPECT")
	// The step paused etcd; its pods never left 4.0.0, though the
	// operator asked for 4.0.1.
	paused, asked := false, false
	for _, e := range tl.Events() {
		if e.Actor == "scenario" && e.Object.Kind == "Deployment" && e.Object.Name == "etcd" && e.IsWrite() {
			paused = true
		}
		f, ok := e.Field("spec.template.metadata.labels")
		var labels map[string]string
		if ok && json.Unmarshal(f.After, &labels) == nil && labels[versionKey] == "4.0.1" && e.Object.Kind == "Deployment" && e.Object.Name == "etcd" {
			asked = true
		}
		if l, ok := e.Field("metadata.labels"); ok && e.Object.Kind == "Pod" && strings.Contains(string(l.After), `"4.0.1"`) && strings.HasPrefix(e.Object.Name, "etcd-") {
			t.Errorf("a pod of etcd at 4.0.1 on the timeline: %s", e.Object)
		}
	}
	if !paused || !asked {
		t.Errorf("the step paused etcd: %t; its operator asked for 4.0.1: %t", paused, asked)
	}
	etcd := &appsv1.Deployment{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: componentsNS, Name: "etcd"}, etcd); err != nil {
		t.Fatal(err)
	}
	if etcd.Spec.Paused {
		t.Error("etcd's Deployment is still paused after the run")
	}
	var said bool
	for _, p := range run.Processes {
		said = said || strings.Contains(strings.Join(p.Endings, "; "), "operand Deployment "+componentsNS+"/etcd: the rollout the run held put back as found (spec.paused false)")
	}
	if !said {
		t.Errorf("the report does not say etcd's rollout was put back: %+v", run.Processes)
	}
	if t.Failed() {
		t.Log(tm.Kubelet.Logs())
	}
	clustertest.SameState(t, before, tm.State(t, false))
}
