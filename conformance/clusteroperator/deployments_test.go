package clusteroperator

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reference/component"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// clusterScenario has two components, an admin's blocker, an upgrade and
// an operator killed and restarted.
const clusterScenario = `name: c
mechanism: clusteroperator
duration: 10m
release: 4.0.0
components:
  - name: etcd
    operands:
      - {kind: Deployment, name: etcd, replicas: 3}
  - name: network
    operands:
      - {kind: DaemonSet, name: network-agent}
steps:
  - at: 1m
    blockUpgrade: {component: etcd, message: Back up etcd first}
  - at: 2m
    upgrade: 4.0.1
  - at: 3m
    unblockUpgrade: etcd
  - at: 4m
    restartOperator: network
`

func parseCluster(t *testing.T, yaml string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("c.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func deploymentCast(t *testing.T, spec string) conformance.Cast {
	t.Helper()
	cast, err := conformance.Subjects(Mechanism(DefaultConfig()), map[string]string{RoleOperator: spec})
	if err != nil {
		t.Fatal(err)
	}
	return cast
}

// What a run on a cluster would write that opcert did not create, each
// said with its why: the operators' Deployments (their version label,
// their scale) and the admin's ConfigMap; opcert's own operators touch
// nothing (and cannot play on a cluster).
func TestTouches(t *testing.T) {
	sc := parseCluster(t, clusterScenario)
	got := map[string][]string{}
	for _, tc := range touches(sc, deploymentCast(t, "deployment:ops/{name}-operator")) {
		got[tc.Object()] = append(got[tc.Object()], tc.Why)
	}
	for object, whys := range map[string][]string{
		"Deployment.apps ops/etcd-operator": {"when the version operator reaches component etcd, it sets the pod template label opcert.io/version to 4.0.0",
			"step upgrade at +2m0s: the version operator sets its label opcert.io/version to 4.0.1"},
		"Deployment.apps ops/network-operator": {"scales it to 1 if it has no replica; label and replicas restored at the end",
			"step restartOperator network at +4m0s scales it to 0 and back"},
		"ConfigMap ops/etcd-admin": {"step blockUpgrade at +1m0s writes the admin's upgrade blocker of etcd (data.upgradeBlocker); created if missing",
			"step unblockUpgrade at +3m0s"},
	} {
		all := strings.Join(got[object], "\n")
		for _, why := range whys {
			if !strings.Contains(all, why) {
				t.Errorf("%s: %q not among:\n%s", object, why, all)
			}
		}
	}
	if len(got) != 3 {
		t.Errorf("touched %d objects, want 3: %v", len(got), got)
	}
	if own := touches(sc, deploymentCast(t, "reference")); own != nil {
		t.Errorf("opcert's own operators touch %v", own)
	}
}

// The rights beyond every run's: the run's ClusterVersion cluster-wide,
// and once per namespace of the Deployments what the version label and
// the recording of the components' world need.
func TestAccess(t *testing.T) {
	sc := parseCluster(t, clusterScenario)
	for _, tc := range []struct {
		spec string
		want []string // kind/subresource@namespace
	}{
		{"deployment:ops/{name}-operator", []string{"ClusterVersion@", "ClusterVersion/status@",
			"Deployment@ops", "DaemonSet@ops", "Pod@ops", "ConfigMap@ops"}},
		{"deployment:{name}-ops/operator", []string{"ClusterVersion@", "ClusterVersion/status@",
			"Deployment@etcd-ops", "DaemonSet@etcd-ops", "Pod@etcd-ops", "ConfigMap@etcd-ops",
			"Deployment@network-ops", "DaemonSet@network-ops", "Pod@network-ops", "ConfigMap@network-ops"}},
		{"reference", nil},
	} {
		var got []string
		for _, a := range access(sc, deploymentCast(t, tc.spec)) {
			k := a.Kind.Kind
			if a.Subresource != "" {
				k += "/" + a.Subresource
			}
			got = append(got, k+"@"+a.Namespace)
			if a.Role == "" || len(a.Verbs) == 0 {
				t.Errorf("%s: %s names no role or verb: %+v", tc.spec, k, a)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: access %v, want %v", tc.spec, got, tc.want)
		}
	}
}

// Objects of the team's namespaces are filed under their component's
// namespace, as the rules read them, or dropped when none of the
// scenario's; components sharing a namespace must not share names.
func TestLayoutAndWhose(t *testing.T) {
	sc := parseCluster(t, clusterScenario)
	spec, err := conformance.ParseDeployment("ops/{name}-operator")
	if err != nil {
		t.Fatal(err)
	}
	operands, admins, err := layout(scenarioWorld(sc), spec.For)
	if err != nil {
		t.Fatal(err)
	}
	p := &deploys{operands: operands, admins: admins}
	for _, tc := range []struct {
		name                   string
		kind, object, verb     string
		labels                 map[string]string
		component, actor, role string
	}{
		{"an operand's spec", "Deployment", "etcd", timeline.VerbUpdate, nil, "etcd", "operator/etcd", RoleOperator},
		{"an operand's status", "DaemonSet", "network-agent", timeline.VerbUpdateStatus, nil, "network", clusterActor, roleWorkload},
		{"an operand's pod", "Pod", "etcd-x1", timeline.VerbCreate, map[string]string{component.WorkloadLabel: "etcd"}, "etcd", clusterActor, roleWorkload},
		{"a pod by its app label", "Pod", "network-agent-x1", timeline.VerbUpdateStatus, map[string]string{"app": "network-agent"}, "network", clusterActor, roleWorkload},
		{"the admin's ConfigMap", "ConfigMap", "etcd-admin", timeline.VerbUpdate, nil, "etcd", timeline.RoleScenario, timeline.RoleScenario},
		{"an operator's Deployment", "Deployment", "etcd-operator", timeline.VerbUpdate, nil, "", "", ""},
		{"an operator's pod", "Pod", "etcd-operator-x1", timeline.VerbCreate, map[string]string{"app": "etcd-operator"}, "", "", ""},
		{"another ConfigMap", "ConfigMap", "settings", timeline.VerbUpdate, nil, "", "", ""},
	} {
		obj := &unstructured.Unstructured{}
		obj.SetName(tc.object)
		obj.SetLabels(tc.labels)
		e := timeline.Event{Verb: tc.verb, Object: timeline.ObjectRef{Kind: tc.kind, Namespace: "ops", Name: tc.object}}
		component, actor, role := p.whose("ops", e, obj)
		if component != tc.component || (component != "" && (actor != tc.actor || role != tc.role)) {
			t.Errorf("%s: %q by %s (%s), want %q by %s (%s)", tc.name, component, actor, role, tc.component, tc.actor, tc.role)
		}
	}
	if _, _, err := layout(scenarioWorld(parseCluster(t, strings.Replace(clusterScenario, "name: network-agent", "name: etcd", 1))), spec.For); err == nil ||
		!strings.Contains(err.Error(), "operand etcd of component network is also an operand of component etcd in namespace ops") {
		t.Errorf("two components' operands of one name: %v", err)
	}
	named, _ := conformance.ParseDeployment("ops/{name}")
	if _, _, err := layout(scenarioWorld(sc), named.For); err == nil || !strings.Contains(err.Error(), "is also the operator Deployment of component etcd") {
		t.Errorf("an operand named as an operator's Deployment: %v", err)
	}
}

// A stickOperand step on a cluster touches the operand it holds, said
// with its why, and holding a DaemonSet's needs its patch (a Deployment's
// is among the rights every such run has).
func TestStuckOperandsTouchesAndAccess(t *testing.T) {
	sc := parseCluster(t, `name: s
mechanism: clusteroperator
duration: 10m
release: 4.0.0
components:
  - name: etcd
    operands:
      - {kind: Deployment, name: etcd, replicas: 3}
  - name: network
    operands:
      - {kind: DaemonSet, name: network-agent}
steps:
  - at: 1m
    stickOperand: {component: etcd, operand: etcd, version: 4.0.1}
  - at: 1m
    stickOperand: {component: network, operand: network-agent, version: 4.0.1}
  - at: 2m
    upgrade: 4.0.1
`)
	cast := deploymentCast(t, "deployment:ops/{name}-operator")
	got := map[string]string{}
	for _, tc := range touches(sc, cast) {
		got[tc.Object()] += tc.Why
	}
	for _, object := range []string{"Deployment.apps ops/etcd", "DaemonSet.apps ops/network-agent"} {
		if !strings.Contains(got[object], "step stickOperand at +1m0s holds its rollouts") || !strings.Contains(got[object], "put back as found at the end") {
			t.Errorf("%s: %q", object, got[object])
		}
	}
	var patch []string
	for _, a := range access(sc, cast) {
		if slices.Contains(a.Verbs, "patch") {
			patch = append(patch, a.Kind.Kind+"@"+a.Namespace)
		}
	}
	if want := []string{"Deployment@ops", "DaemonSet@ops"}; !slices.Equal(patch, want) {
		t.Errorf("patched: %v, want %v", patch, want)
	}
}
