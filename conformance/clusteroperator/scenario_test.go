package clusteroperator

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/reference/cvo"
	"github.com/opcert/opcert/scenarios"
)

const base = `name: t
mechanism: clusteroperator
duration: 10m
release: 4.0.0
components:
  - name: etcd
    operands:
      - {kind: Deployment, name: etcd, replicas: 3}
`

// Every built-in loads (Parse validates it).
func TestBuiltinsLoad(t *testing.T) {
	if n := len(conformancetest.Builtins(Name)); n < 7 {
		t.Errorf("%d built-in clusteroperator scenarios, want 7 or more", n)
	}
}

// A scenario's mistakes are refused, each naming its field and what to do.
func TestValidation(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"bad release", strings.Replace(base, "release: 4.0.0", "release: 'four oh'", 1), `release: "four oh" is not a version`},
		{"no components", strings.SplitN(base, "components:", 2)[0] + "components: []\n", "components: required"},
		{"bad kind", strings.Replace(base, "kind: Deployment", "kind: StatefulSet", 1), `"StatefulSet" is not an operand kind`},
		{"no replicas", strings.Replace(base, ", replicas: 3", "", 1), "a Deployment runs 1 to 20 replicas"},
		{"daemonset replicas", strings.Replace(base, "kind: Deployment", "kind: DaemonSet", 1), "a DaemonSet runs one pod per node"},
		{"unknown component", base + "steps:\n  - at: 1m\n    killOperator: dns\n", `no component "dns"; components: etcd`},
		{"unknown node", base + "steps:\n  - at: 1m\n    holdNode: worker-9\n", `no node "worker-9"; nodes: master-0, master-1, master-2`},
		{"unknown operand", base + "steps:\n  - at: 1m\n    stickOperand: {component: etcd, operand: agent, version: 4.0.1}\n", `component etcd has no operand "agent"`},
		{"blocker without message", base + "steps:\n  - at: 1m\n    blockUpgrade: {component: etcd, message: ' '}\n", "required: what the admin must fix"},
		{"bad upgrade", base + "steps:\n  - at: 1m\n    upgrade: '-'\n", `"-" is not a version`},
		{"expect unknown", base + "steps:\n  - at: 1m\n    expect: {object: dns, condition: Available, status: \"True\"}\n", `no component "dns"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Parse("t.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := scenarios.Parse("t.yaml", []byte(base)); err != nil {
		t.Errorf("the base scenario: %v", err)
	}
}

// The payload of a release is swept component by component in the
// scenario's order, each ClusterOperator after its operator's Deployment
// and expecting the release's version, except a trapped one (001's NOTE).
func TestReleasePayload(t *testing.T) {
	w := &World{Release: "4.0.0", Components: []Component{
		{Name: "etcd", Operands: []Operand{{Kind: "Deployment", Name: "etcd", Replicas: 1}}},
		{Name: "network", Trap: true, Operands: []Operand{{Kind: "DaemonSet", Name: "agent"}}},
	}}
	p, err := releasePayload(w, "4.0.1")
	if err != nil {
		t.Fatal(err)
	}
	tasks, _, err := cvo.TasksOf(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range tasks {
		s := task.File + " " + task.Kind + " " + task.Name
		if task.ClusterOperator {
			s += " expects " + task.Versions[0].Name + "=" + task.Versions[0].Version
			if task.Operator != nil && task.Operator.Index > task.Index {
				s += " (operator later)"
			}
		}
		got = append(got, s)
	}
	want := []string{
		"0000_10_etcd_00_namespaces.yaml Namespace etcd-operator",
		"0000_10_etcd_00_namespaces.yaml Namespace etcd",
		"0000_10_etcd_03_deployment.yaml Deployment etcd-operator",
		"0000_10_etcd_07_clusteroperator.yaml ClusterOperator etcd expects operator=4.0.1",
		"0000_11_network_00_namespaces.yaml Namespace network-operator",
		"0000_11_network_00_namespaces.yaml Namespace network",
		"0000_11_network_02_clusteroperator.yaml ClusterOperator network expects operator=4.0.1 (operator later)",
		"0000_11_network_03_deployment.yaml Deployment network-operator",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tasks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
