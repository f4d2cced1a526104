package cvo

import (
	"errors"
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

func blocking(reason, msg string) configv1.ClusterOperatorStatusCondition {
	return cnd(upgradeOK, configv1.ConditionFalse, reason, msg)
}

// TestUpgrade: a component's Upgradeable=False refuses an upgrade, naming
// it and its message, and the upgrade is accepted once it is fixed (001
// §What should an operator report, guarantees to components 3).
func TestUpgrade(t *testing.T) {
	blocked := func(etcd, kas configv1.ClusterOperatorStatusCondition) Cluster {
		return cluster(map[string]configv1.ClusterOperatorStatus{
			"etcd": healthy(etcdVers("4.0.0"), etcd), "kube-apiserver": healthy(kasVers("4.0.0"), kas)})
	}
	upTrue := cnd(upgradeOK, configv1.ConditionTrue, "AsExpected", "")
	cases := []struct {
		name   string
		c      Cluster
		to     string
		refuse string // the refusal's text, "" when accepted
		same   bool   // accepted without a change
	}{
		{"no blocker: accepted", healthyAt("4.0.0"), "4.0.1", "", false},
		{"Upgradeable=True is no blocker", blocked(upTrue, upTrue), "4.0.1", "", false},
		{"Upgradeable=Unknown is no blocker", blocked(cnd(upgradeOK, configv1.ConditionUnknown, "", ""), upTrue), "4.0.1", "", false},
		{"one blocker", blocked(blocking("NodesBehind", "Nodes are at 3.11; upgrade them first"), upTrue), "4.0.1",
			"Upgrade to 4.0.1 refused: Cluster operator etcd should not be upgraded: Nodes are at 3.11; upgrade them first", false},
		{"a blocker without a message", blocked(upTrue, blocking("", "")), "4.0.1",
			"Upgrade to 4.0.1 refused: Cluster operator kube-apiserver should not be upgraded: it gives no message", false},
		{"two blockers, by name", blocked(blocking("NodesBehind", "Nodes are at 3.11"), blocking("", "Remove the deprecated flag")), "4.0.1",
			"Upgrade to 4.0.1 refused: Multiple cluster operators should not be upgraded:\n" +
				"* Cluster operator etcd should not be upgraded: NodesBehind: Nodes are at 3.11\n" +
				"* Cluster operator kube-apiserver should not be upgraded: Remove the deprecated flag", false},
		{"the desired version again changes nothing, blocked or not", blocked(blocking("NodesBehind", "Nodes are at 3.11"), upTrue), "4.0.0", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := installed()
			s, err := Upgrade(before, tc.c, release(tc.to), payload(tc.to))
			if tc.refuse != "" {
				var r *Refusal
				if !errors.As(err, &r) || err.Error() != tc.refuse {
					t.Fatalf("refusal %v, want %q", err, tc.refuse)
				}
				if !reflect.DeepEqual(s, before) {
					t.Errorf("a refused upgrade changed the state")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.same && !reflect.DeepEqual(s, before):
				t.Errorf("asking for the desired version again changed the state")
			case !tc.same && (s.Status.Desired.Version != tc.to || s.Done != 0 || len(s.Tasks) != len(payload(tc.to))):
				t.Errorf("desired %s done %d, want %s from its first task", s.Status.Desired.Version, s.Done, tc.to)
			}
		})
	}
}

// TestUpgradeAcceptedOnceFixed: refused while etcd says Upgradeable=False,
// the ClusterVersion saying so too; accepted once etcd is fixed.
func TestUpgradeAcceptedOnceFixed(t *testing.T) {
	c := cluster(map[string]configv1.ClusterOperatorStatus{"etcd": healthy(etcdVers("4.0.0"), blocking("NodesBehind", "Nodes are at 3.11"))})
	s := Step(DefaultParams(), installed(), c, at(0)).State
	if u := find(s.Status.Conditions, upgradeOK); u.Status != configv1.ConditionFalse || u.Message != "Cluster operator etcd should not be upgraded: Nodes are at 3.11" {
		t.Errorf("ClusterVersion Upgradeable %+v", u)
	}
	if _, err := Upgrade(s, c, release("4.0.1"), payload("4.0.1")); err == nil {
		t.Fatal("upgrade accepted while etcd is not upgradeable")
	}
	c = healthyAt("4.0.0")
	s = Step(DefaultParams(), s, c, at(0)).State
	if u := find(s.Status.Conditions, upgradeOK); u.Status != configv1.ConditionTrue {
		t.Errorf("ClusterVersion Upgradeable %+v once fixed", u)
	}
	if s, err := Upgrade(s, c, release("4.0.1"), payload("4.0.1")); err != nil || s.Status.Desired.Version != "4.0.1" {
		t.Errorf("upgrade once fixed: %v, desired %s", err, s.Status.Desired.Version)
	}
}
