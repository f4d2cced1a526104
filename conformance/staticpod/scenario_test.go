package staticpod_test

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/scenarios"
)

// base is a valid scenario; the cases below append to it or replace it.
const base = `name: t
mechanism: staticpod
duration: 30m
revisions:
  - {revision: 1, operand: healthy}
  - {revision: 2, operand: notReady}
installed: 1
`

// The kind's checks: each problem is reported as file:line: path: what is
// wrong; what to do.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: valid
	}{
		{"the base is valid", base, nil},
		{"a full scenario is valid", base + `nodes: [master-0, master-1]
keep: 3
lastKnownGood: false
leftoverMonitor: 2
writeTime: {installer: 1s, startupMonitor: 2s}
steps:
  - {at: 1m, rollout: {revision: 2}}
  - {killMonitor: master-1}
  - {restartMonitor: master-1}
  - {killInstaller: master-0}
  - {restartInstaller: master-0}
  - {killPruner: master-0}
  - {restartPruner: master-0}
  - {killOperator: kube-apiserver}
  - {restartOperator: kube-apiserver}
  - {hangOperator: kube-apiserver}
  - {reconnectOperator: kube-apiserver}
  - {etcd: {down: true}}
  - expect: {object: kube-apiserver, condition: StaticPodFallbackRevisionDegraded, status: "False"}
  - expect: {apiVersion: v1, kind: Pod, namespace: openshift-kube-apiserver, object: kube-apiserver-master-0, condition: Ready, status: "True"}
`, nil},
		{"no revisions", "name: t\nmechanism: staticpod\nduration: 1m\n",
			[]string{"t.yaml:1: revisions: required: declare the operand's revisions"}},
		{"an unknown operand model", strings.Replace(base, "operand: notReady", "operand: flaky", 1),
			[]string{`t.yaml:6: revisions[1].operand: "flaky" is not an operand model; use one of: healthy, invalidManifest,`}},
		{"a missing operand model", strings.Replace(base, ", operand: notReady", "", 1),
			[]string{"t.yaml:6: revisions[1].operand: required; use one of: healthy"}},
		{"a revision twice", strings.Replace(base, "revision: 2,", "revision: 1,", 1),
			[]string{"t.yaml:6: revisions[1].revision: revision 1 is declared twice (first at line 5)"}},
		{"revision 0", strings.Replace(base, "revision: 2,", "revision: 0,", 1),
			[]string{"t.yaml:6: revisions[1].revision: 0 is out of range; revisions are numbered from 1"}},
		{"a negative duration", strings.Replace(base, "operand: notReady}", "operand: notReady, readyAfter: -1s}", 1),
			[]string{"t.yaml:6: revisions[1].readyAfter: -1s is out of range"}},
		{"a hook on a model without one", strings.Replace(base, "operand: healthy}", "operand: healthy, hook: x}", 1),
			[]string{"t.yaml:5: revisions[0].hook: only a notReady operand has a hook"}},
		{"a termination message on a model that never exits", strings.Replace(base, "operand: notReady}", "operand: notReady, message: boom}", 1),
			[]string{"t.yaml:6: revisions[1].message: only a badConfig or portWaitTimeout operand exits by itself"}},
		{"a termination message of two lines", strings.Replace(base, "operand: notReady}", "operand: badConfig, message: \"a\\nb\"}", 1),
			[]string{"t.yaml:6: revisions[1].message: is not one line of at most 4096 bytes"}},
		{"a crash loop's own termination message is valid", strings.Replace(base, "operand: notReady}", "operand: badConfig, message: \"Error: unknown flag: --bar\"}", 1), nil},
		{"an unknown field", strings.Replace(base, "operand: healthy}", "operand: healthy, delay: 1s}", 1),
			[]string{`t.yaml:5: revisions[0]: unknown field "delay"`}},
		{"installed not declared", strings.Replace(base, "installed: 1", "installed: 7", 1),
			[]string{"t.yaml:7: installed: revision 7 is not declared under revisions"}},
		{"installed never ready, linked by default", strings.Replace(base, "installed: 1", "installed: 2", 1),
			[]string{"t.yaml:7: installed: revision 2 is notReady, never ready, so it cannot be last-known-good as it is by default; add lastKnownGood: false"}},
		{"installed never ready, linked", strings.Replace(base, "installed: 1", "installed: 2\nlastKnownGood: true", 1),
			[]string{"t.yaml:8: lastKnownGood: the installed revision 2 is notReady"}},
		{"a link with nothing installed", strings.Replace(base, "installed: 1", "lastKnownGood: true", 1),
			[]string{"t.yaml:7: lastKnownGood: nothing is installed to link"}},
		{"a leftover monitor not declared", base + "leftoverMonitor: 9\n",
			[]string{"t.yaml:8: leftoverMonitor: revision 9 is not declared"}},
		{"a negative keep", base + "keep: -1\n",
			[]string{"t.yaml:8: keep: -1 is out of range"}},
		{"a write time over a minute", base + "writeTime: {installer: 2m}\n",
			[]string{"t.yaml:8: writeTime.installer: 2m0s is out of range; use 0 to 1m0s"}},
		{"a node name that is no label", base + "nodes: [Master_0]\n",
			[]string{`t.yaml:8: nodes[0]: "Master_0" is not a DNS-1123 label`}},
		{"a node twice", base + "nodes: [a, a]\n",
			[]string{`t.yaml:8: nodes[1]: node "a" is given twice`}},
		{"a rollout of an undeclared revision", base + "steps:\n  - {at: 1m, rollout: {revision: 5}}\n",
			[]string{"t.yaml:9: steps[0].rollout.revision: revision 5 is not declared under revisions; declared: 1, 2"}},
		{"a process action on an unknown node", base + "steps:\n  - {at: 1m, killMonitor: master-9}\n",
			[]string{`t.yaml:9: steps[0].killMonitor: no node "master-9"; nodes: master-0`}},
		{"an operator action on another operator", base + "steps:\n  - {at: 1m, killOperator: etcd}\n",
			[]string{`t.yaml:9: steps[0].killOperator: no operator "etcd"; the operator of this mechanism is "kube-apiserver"`}},
		{"an expectation on another ClusterOperator", base + "steps:\n  - expect: {object: etcd, condition: Degraded, status: \"True\"}\n",
			[]string{`t.yaml:9: steps[0].expect.object: no ClusterOperator "etcd"; the operator writes "kube-apiserver"`}},
		{"an expectation on a condition the operator does not write", base + "steps:\n  - expect: {object: kube-apiserver, condition: Failing, status: \"True\"}\n",
			[]string{`t.yaml:9: steps[0].expect.condition: "Failing" is not a ClusterOperator condition type; use one of: Degraded, Available, Progressing, StaticPodFallbackRevisionDegraded`}},
		{"two actions in a step", base + "steps:\n  - {at: 1m, killMonitor: master-0, etcd: {down: true}}\n",
			[]string{"t.yaml:9: steps[0]: has killMonitor and etcd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scenarios.Parse("t.yaml", []byte(c.yaml))
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("want no error, got:\n%v", err)
				}
				if sc.Mechanism != staticpod.Name {
					t.Errorf("mechanism %q", sc.Mechanism)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error with %q, got none", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// Defaults: one node, master-0; the pruner keeps 5; last-known-good is the
// installed revision unless told otherwise.
func TestWorldDefaults(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	w := sc.World.(*staticpod.World)
	if got := w.NodeNames(); len(got) != 1 || got[0] != "master-0" {
		t.Errorf("nodes %v, want [master-0]", got)
	}
	if w.KeepCount() != 5 {
		t.Errorf("keep %d, want 5", w.KeepCount())
	}
	if w.Linked() != 1 {
		t.Errorf("linked %d, want the installed revision 1", w.Linked())
	}
	if m := w.Model(2); m.Kind != "notReady" {
		t.Errorf("revision 2 is %s, want notReady", m.Kind)
	}
	no := strings.Replace(base, "installed: 1", "installed: 1\nlastKnownGood: false", 1)
	if sc, err = scenarios.Parse("t.yaml", []byte(no)); err != nil {
		t.Fatal(err)
	}
	if l := sc.World.(*staticpod.World).Linked(); l != 0 {
		t.Errorf("lastKnownGood: false links %d, want none", l)
	}
}

// Every built-in loads, and names a staticpod-... scenario.
func TestBuiltins(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range all {
		if sc.Mechanism != staticpod.Name {
			continue
		}
		n++
		if !strings.HasPrefix(sc.Name, "staticpod-") {
			t.Errorf("%s: built-in %q is not named staticpod-...", sc.Source, sc.Name)
		}
	}
	if n < 14 {
		t.Errorf("%d built-in scenarios, want every case of the test plan and more", n)
	}
}

// The flags' values are checked, naming the flag.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  staticpod.Config
		want string
	}{
		{staticpod.DefaultConfig(), ""},
		{staticpod.Config{Timeout: 0, Profile: "seed"}, "--staticpod-timeout 0s is out of range"},
		{staticpod.Config{Timeout: 48 * 3600e9, Profile: "seed"}, "--staticpod-timeout 48h0m0s is out of range"},
		{staticpod.Config{Timeout: 300e9, Profile: "openshift"}, `--staticpod-profile "openshift" is not known: give seed`},
		{staticpod.Config{Timeout: 300e9, Profile: "seed", Reaction: -1e9}, "reaction bound -1s is out of range"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want %q", c.cfg, err, c.want)
		}
	}
}
