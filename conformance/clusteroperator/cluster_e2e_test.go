package clusteroperator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 001 (cluster/doc.go): the example component
// operator deployed by examples/componentoperator/deploy.yaml, a
// Deployment per component at 0 replicas, plays each component's operator,
// the run reaching the server as a cluster (conformancetest.PlayCluster)
// as a user bound only to the shipped roles;
// clustertest's Kubelet runs its binary while a Deployment has replicas
// (its version from the pod template's label, by the downward API) and
// operandPods plays the operands' pods. opcert run's own part (its
// flags, the rights it checks first) is cmd/opcert's to test.

const componentsNS = clusteroperatortest.Namespace

// coClusterUpgrade is the cluster-mode upgrade scenario, shared with
// cmd/opcert's refusal test.
const coClusterUpgrade = "testdata/co-cluster-upgrade.yaml"

// co-clean-install, then an upgrade from a clean cluster: the example
// passes the CO rules and the expectations; the version operator moved
// each operator's version label to 4.0.1 and the run put it back, with the
// replicas.
func TestClusterModeCertifiesTheComponentOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/componentoperator/cmd/componentoperator")
	tm := clusteroperatortest.Deploy(t, api, bin)
	k, admin := tm.Kubelet, tm.Admin
	pods := &operandPods{c: admin, ns: componentsNS, born: map[string]time.Time{}}
	t.Cleanup(clustertest.Every(50*time.Millisecond, pods.sync))
	// opcert's user has only what the shipped roles grant.
	tm.Bind(t, "opcert-co", true)
	user := clustertest.User(t, api, "opcert-co-runner", "opcert-co")
	before := tm.State(t, false)
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	for _, tc := range []struct {
		scenario string
		// pass must pass; every other case passes or is skipped.
		pass []string
	}{
		{"co-clean-install", []string{"CO-001", "CO-002", "CO-003", "CO-006", "CO-007", "CO-020", "EXPECT"}},
		// CO-004 owes nothing here: the stand-in's pods (300ms each at
		// 0.01) roll an operand out in about 1.2s, under the "second or
		// two" after which 001 asks for Progressing; it passed only when a
		// busy machine made the rollout longer. Process mode's test judges
		// it on the built-ins.
		{coClusterUpgrade, []string{"CO-001", "CO-002", "CO-003", "CO-006", "CO-007", "CO-009", "CO-020", "EXPECT"}},
	} {
		k.StartedSince(versionKey)
		run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), m, tc.scenario,
			map[string]string{clusteroperator.RoleOperator: "deployment:" + componentsNS + "/{name}-operator"}, 0.01)
		if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
			t.Fatalf("%s on the cluster: error %q, stopped %q, not judged %q\n%s", run.Scenario, run.Error, run.Stopped, run.NotJudged, k.Logs())
		}
		for _, cs := range run.Cases {
			if cs.Status != reports.Pass && cs.Status != reports.Skip {
				t.Errorf("%s %s: %s %s", run.Scenario, cs.Rule, cs.Status, cs.Message)
			}
		}
		conformancetest.Certified(t, run, tc.pass...)
		for _, p := range run.Processes {
			if !strings.Contains(strings.Join(p.Endings, "; "), "label opcert.io/version restored to 4.0.0") {
				t.Errorf("%s: %s %q does not say its label was restored", run.Scenario, p.Name, p.Endings)
			}
		}
		if tc.scenario == coClusterUpgrade {
			moved := labelWrites(t, tl)
			for _, name := range []string{"etcd-operator", "network-operator"} {
				if got := strings.Join(moved[name], ","); got != `"4.0.1"` {
					t.Errorf("the version operator set %s's label to %s, want 4.0.1 once", name, got)
				}
			}
			// The operators were stopped before their label went back: no
			// pod of 4.0.0 ran after the upgrade, nor rolled the operands
			// back.
			want := []string{"etcd-operator 4.0.0", "etcd-operator 4.0.1", "network-operator 4.0.0", "network-operator 4.0.1"}
			if got := k.StartedSince(versionKey); !slices.Equal(got, want) {
				t.Errorf("the operators' pods started %v, want %v", got, want)
			}
			etcd, agent := &appsv1.Deployment{}, &appsv1.DaemonSet{}
			for name, obj := range map[string]client.Object{"etcd": etcd, "network-agent": agent} {
				if err := admin.Get(context.Background(), client.ObjectKey{Namespace: componentsNS, Name: name}, obj); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := etcd.Spec.Template.Labels[versionKey], agent.Spec.Template.Labels[versionKey]; a != "4.0.1" || b != "4.0.1" {
				t.Errorf("the operands ask %q and %q after the run, want 4.0.1", a, b)
			}
		}
		clustertest.SameState(t, before, tm.State(t, false))
		k.WaitRunning(t, "", 10*time.Second) // both back at 0 replicas
		tm.StartOver(t)                      // the next scenario installs afresh
	}
}

// labelWrites are, per Deployment, the version labels the version
// operator's writes to it set, from a run's timeline.
func labelWrites(t *testing.T, tl *timeline.Timeline) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range tl.Events() {
		if e.Actor != "version-operator" || e.Object.Kind != "Deployment" || e.Object.Namespace != componentsNS {
			continue
		}
		for _, f := range e.Fields {
			if f.Path == "spec.template.metadata.labels" {
				var labels map[string]string
				if err := json.Unmarshal(f.After, &labels); err != nil {
					t.Fatalf("%s: %v", f.After, err)
				}
				out[e.Object.Name] = append(out[e.Object.Name], fmt.Sprintf("%q", labels[versionKey]))
			}
		}
	}
	return out
}
