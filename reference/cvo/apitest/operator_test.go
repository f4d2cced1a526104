package apitest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/opcert/opcert/reference/cvo"
	"github.com/opcert/opcert/sim/timeline"
)

const (
	available   = configv1.OperatorAvailable
	progressing = configv1.OperatorProgressing
	upgradeable = configv1.OperatorUpgradeable
	failing     = configv1.ClusterStatusConditionType("Failing")
	isTrue      = configv1.ConditionTrue
	isFalse     = configv1.ConditionFalse
)

// 001 §How ClusterVersionOperator handles ClusterOperator in release image:
// the installation applies every manifest before the ClusterOperator, waits
// there until the live ClusterOperator reports the payload's version and
// Available, and completes; the ClusterVersion's conditions take the forms
// of 001 §Conditions.
func TestInstallWaitsForTheClusterOperator(t *testing.T) {
	h := install(t, "good", "install", "4.0.0", nil)
	notDeployed := cond{available, isFalse, "Cluster has not deployed a version yet"}
	notFailing := cond{failing, isFalse, ""}
	h.play(
		look{at: 0, requeue: 40 * time.Minute, want: []cond{notDeployed, notFailing,
			{progressing, isTrue, "Working towards 4.0.0: Cluster operator install-example is not available"}}},
		look{at: 2 * time.Minute, requeue: 38 * time.Minute,
			report: func(h *harness) {
				h.report(nil, co(available, isFalse, "Deploying", "The operand is not deployed yet"))
			},
			want: []cond{notDeployed, notFailing,
				{progressing, isTrue, "Working towards 4.0.0: Cluster operator install-example is not available"}}},
		look{at: 5 * time.Minute, requeue: 35 * time.Minute,
			report: func(h *harness) { h.report(nil, healthy()...) },
			want: []cond{notDeployed, notFailing,
				{progressing, isTrue, "Working towards 4.0.0: Cluster operator install-example is updating versions"}}},
		look{at: 10 * time.Minute,
			report: func(h *harness) { h.report(operatorAt("4.0.0"), healthy()...) },
			want: []cond{notFailing, {available, isTrue, "Cluster has deployed 4.0.0"},
				{progressing, isFalse, "Cluster version is 4.0.0"}, {upgradeable, isTrue, ""}}},
	)
	for _, o := range []struct{ apiVersion, kind, namespace, name string }{
		{"v1", "Namespace", "", "install-example-operator"},
		{"v1", "ServiceAccount", "install-example-operator", "install-example-operator"},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "install-example-operator"},
		{"apps/v1", "Deployment", "install-example-operator", "install-example-operator"},
		{"v1", "ConfigMap", "install-example-operator", "install-example-operator-config"},
	} {
		if h.object(o.apiVersion, o.kind, o.namespace, o.name) == nil {
			t.Errorf("%s %s/%s was not applied", o.kind, o.namespace, o.name)
		}
	}
	cv := h.clusterVersion()
	if hs := cv.Status.History; len(hs) != 1 || hs[0].State != configv1.CompletedUpdate || hs[0].Version != "4.0.0" ||
		hs[0].CompletionTime == nil || !hs[0].CompletionTime.Equal(at(10*time.Minute)) {
		t.Errorf("history %+v, want 4.0.0 completed at +10m", hs)
	}
	if cv.Spec.ClusterID == "" || cv.Status.Desired.Version != "4.0.0" {
		t.Errorf("clusterID %q, desired %q", cv.Spec.ClusterID, cv.Status.Desired.Version)
	}
}

// 001's NOTE: a ClusterOperator manifest sorted before the Deployment of
// its operator blocks the sweep for good; the ClusterVersion says so at
// once, naming both manifests, and the Deployment is never applied.
func TestOrderingTrapIsNamed(t *testing.T) {
	h := install(t, "ordering-trap", "trap", "4.0.0", nil)
	h.play(look{at: 0, want: []cond{
		{failing, isTrue, "Cluster operator trap-example precedes its operator: its manifest " +
			"0000_50_example-operator_07_clusteroperator.yaml is swept before its operator, Deployment " +
			"trap-example-operator/trap-example-operator in 0000_50_example-operator_09_deployment.yaml..."},
		{progressing, isTrue, "Unable to apply 4.0.0: Cluster operator trap-example precedes its operator"},
		{available, isFalse, "Cluster has not deployed a version yet"},
	}})
	if h.object("v1", "Namespace", "", "trap-example-operator") == nil {
		t.Error("the Namespace before the ClusterOperator was not applied")
	}
	if h.object("apps/v1", "Deployment", "trap-example-operator", "trap-example-operator") != nil {
		t.Error("the Deployment after the ClusterOperator was applied")
	}
}

// 001 §What should an operator report, guarantees to components 1: an
// installation whose ClusterOperator never comes fails at the install
// timeout, 40 minutes from its start, and not a second before.
func TestInstallTimeout(t *testing.T) {
	h := install(t, "good", "timeout", "4.0.0", nil)
	h.play(
		look{at: 0, requeue: 40 * time.Minute, want: []cond{{failing, isFalse, ""}}},
		look{at: 39*time.Minute + 59*time.Second, requeue: time.Second, want: []cond{{failing, isFalse, ""}}},
		look{at: 40 * time.Minute, want: []cond{
			{failing, isTrue, "Cluster operator timeout-example is not available: it does not exist yet. " +
				"The installation of 4.0.0 has not completed in 40 minutes."},
			{progressing, isTrue, "Unable to apply 4.0.0: Cluster operator timeout-example is not available"}}},
	)
	if f := find(h.clusterVersion().Status.Conditions, failing); !f.LastTransitionTime.Equal(at(40 * time.Minute)) {
		t.Errorf("Failing turned True at %s, want +40m", f.LastTransitionTime)
	}
}

// 001 §What should an operator report, guarantees to components 3 and
// honored by components 4: an upgrade is refused while a ClusterOperator
// reports Upgradeable=False, with what it says must be fixed, and accepted
// once it is fixed; the upgrade updates the applied manifests and hangs on
// the ClusterOperator until it reports the new version (guarantees to
// components 2).
func TestUpgradeRefusedWhileNotUpgradeable(t *testing.T) {
	h := install(t, "good", "upgrade", "4.0.0", nil)
	h.installed("4.0.0")
	blocked := append(healthy(), co(upgradeable, isFalse, "NodesTooOld", "Nodes are at 3.11: update them first"))
	h.play(look{at: 20 * time.Minute, report: func(h *harness) { h.report(operatorAt("4.0.0"), blocked...) },
		want: []cond{{upgradeable, isFalse, "Cluster operator upgrade-example should not be upgraded: Nodes are at 3.11: update them first"}}})

	next := release(t, "good", "upgrade", "4.0.1", nil)
	err := h.op.Upgrade(h.ctx, "4.0.1", next)
	var refusal *cvo.Refusal
	if !errors.As(err, &refusal) || len(refusal.Blockers) != 1 || refusal.Blockers[0].Name != "upgrade-example" {
		t.Fatalf("Upgrade while Upgradeable=False: %v, want a refusal naming upgrade-example", err)
	}
	h.play(look{at: 21 * time.Minute, want: []cond{{progressing, isFalse, "Cluster version is 4.0.0"}}})
	if d := h.clusterVersion().Status.Desired.Version; d != "4.0.0" {
		t.Fatalf("desired %s after a refused upgrade", d)
	}

	h.report(operatorAt("4.0.0"), healthy()...)
	if err := h.op.Upgrade(h.ctx, "4.0.1", next); err != nil {
		t.Fatalf("Upgrade once fixed: %v", err)
	}
	h.play(
		look{at: 30 * time.Minute, want: []cond{{upgradeable, isTrue, ""}, {failing, isFalse, ""},
			{available, isTrue, "Cluster has deployed 4.0.0"},
			{progressing, isTrue, "Working towards 4.0.1: Cluster operator upgrade-example is updating versions"}}},
		look{at: 3 * time.Hour, want: []cond{{failing, isFalse, ""},
			{progressing, isTrue, "Working towards 4.0.1: Cluster operator upgrade-example is updating versions"}}},
		look{at: 3*time.Hour + time.Minute, report: func(h *harness) { h.report(operatorAt("4.0.1"), healthy()...) },
			want: []cond{{available, isTrue, "Cluster has deployed 4.0.1"}, {progressing, isFalse, "Cluster version is 4.0.1"}}},
	)
	d := h.object("apps/v1", "Deployment", "upgrade-example-operator", "upgrade-example-operator")
	env, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if !strings.Contains(fmt.Sprint(env), "4.0.1") {
		t.Errorf("the Deployment was not updated to 4.0.1: %v", env)
	}
	var got []string
	for _, e := range h.clusterVersion().Status.History {
		got = append(got, e.Version+" "+string(e.State))
	}
	if strings.Join(got, ", ") != "4.0.1 Completed, 4.0.0 Completed" {
		t.Errorf("history %q, want 4.0.1 then 4.0.0, both completed", got)
	}
}

// 001 §Conditions' example of a blocked release: a manifest of a resource
// type the cluster does not serve fails the sweep there, in the seed's
// words, and is tried again a minute later; what follows it waits.
func TestRefusedManifest(t *testing.T) {
	const file = "0000_50_example-operator_04_networkconfig.yaml"
	h := install(t, "good", "refused", "4.0.0", map[string]string{
		file: "apiVersion: network.example.opcert.io/v1\nkind: NetworkConfig\nmetadata:\n  name: cluster\n",
	})
	h.play(look{at: 0, requeue: time.Minute, want: []cond{
		{failing, isTrue, "Unable to apply 4.0.0: could not update " + file +
			" because the resource type NetworkConfig has not been installed on the server."},
		{progressing, isTrue, "Unable to apply 4.0.0: a required object is missing"}}})
	if h.object("apps/v1", "Deployment", "refused-example-operator", "refused-example-operator") == nil {
		t.Error("the Deployment before the refused manifest was not applied")
	}
	if h.object("v1", "ConfigMap", "refused-example-operator", "refused-example-operator-config") != nil {
		t.Error("the ConfigMap after the refused manifest was applied")
	}
	h.play(look{at: 30 * time.Second, requeue: 30 * time.Second, want: []cond{{failing, isTrue, "Unable to apply 4.0.0: could not update..."}}})
}

// The core's choice: a version operator that restarts keeps the
// ClusterVersion's history and conditions and sweeps again from the first
// task, which writes nothing to a cluster that has it all.
func TestRestartKeepsTheHistory(t *testing.T) {
	h := install(t, "good", "restart", "4.0.0", nil)
	h.installed("4.0.0")
	before := h.clusterVersion()
	deployment := func() string {
		return h.object("apps/v1", "Deployment", "restart-example-operator", "restart-example-operator").GetResourceVersion()
	}
	applied := deployment()
	again := install(t, "good", "restart", "4.0.0", nil)
	again.clk.SetTime(timeline.Epoch.Add(time.Hour))
	if res := again.sweep(); res.RequeueAfter != 0 {
		t.Errorf("requeue after %s", res.RequeueAfter)
	}
	after := again.clusterVersion()
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the restarted operator wrote the ClusterVersion: %+v", after.Status)
	}
	if deployment() != applied {
		t.Error("the restarted operator wrote the Deployment, which already held its manifest")
	}
}

// at is the virtual instant d after the start.
func at(d time.Duration) *metav1.Time {
	t := metav1.NewTime(timeline.Epoch.Add(d))
	return &t
}

// A ClusterOperator whose operator the payload lacks (named by
// opcert.io/reported-by) waits for that Deployment on the cluster: absent,
// nothing will ever report it and the ClusterVersion says so at once;
// present, the sweep waits for the ClusterOperator as usual.
func TestOperatorOutsideThePayload(t *testing.T) {
	h := install(t, "no-operator", "outside", "4.0.0", map[string]string{
		"0000_50_example-operator_07_clusteroperator.yaml": "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\n" +
			"metadata:\n  name: example\n  annotations:\n    opcert.io/reported-by: example-operator/example-operator\n" +
			"status:\n  versions:\n  - name: operator\n    version: 0.0.1-snapshot\n",
	})
	h.play(look{at: 0, want: []cond{
		{failing, isTrue, "Cluster operator outside-example has no operator: its operator, Deployment " +
			"outside-example-operator/outside-example-operator, is neither in the payload nor on the cluster..."},
		{progressing, isTrue, "Unable to apply 4.0.0: Cluster operator outside-example has no operator"}}})

	d := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": "outside-example-operator", "name": "outside-example-operator"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "operator", "image": "operator"}}}}}}}
	if err := api.Client.Create(h.ctx, d); err != nil {
		t.Fatal(err)
	}
	h.play(look{at: time.Minute, requeue: 39 * time.Minute, want: []cond{{failing, isFalse, ""},
		{progressing, isTrue, "Working towards 4.0.0: Cluster operator outside-example is not available"}}})
}
