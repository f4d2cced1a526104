package componentoperator

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// upgrade is etcd's operator at 4.0.1 looking at a Deployment of two:
// its spec asks for asks, one pod per version given, ready or not.
func upgrade(asks string, pods ...podState) look {
	op := &operandState{Operand: Operand{Kind: KindDeployment, Name: "etcd", Replicas: 2}, exists: true, asks: asks, pods: pods}
	return look{cfg: Config{Name: "etcd", Version: "4.0.1", StallAfter: 10 * time.Minute, RetryAfter: time.Minute},
		reached: "4.0.0", snap: snapshot{operands: []*operandState{op}}, moved: t0, now: t0.Add(time.Minute)}
}

func pod(name, version string, ready bool) podState {
	return podState{name: name, node: "master-0", version: version, ready: ready}
}

func status(d decision, t configv1.ClusterStatusConditionType) configv1.ConditionStatus {
	if c := find(d.conds, t); c != nil {
		return c.Status
	}
	return ""
}

// Seed 001 §Version reporting during an upgrade: the old version while an
// old pod runs, the new one once none does and every replica is ready;
// Progressing until then, naming the version.
func TestDecideVersionAndProgressing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		l           look
		version     configv1.ConditionStatus
		progressing configv1.ConditionStatus
		reported    string
	}{
		{"spec not written", upgrade("4.0.0", pod("a", "4.0.0", true), pod("b", "4.0.0", true)), "", configv1.ConditionTrue, "4.0.0"},
		{"one old pod left", upgrade("4.0.1", pod("a", "4.0.1", true), pod("b", "4.0.0", true)), "", configv1.ConditionTrue, "4.0.0"},
		{"a new pod not ready", upgrade("4.0.1", pod("a", "4.0.1", true), pod("b", "4.0.1", false)), "", configv1.ConditionTrue, "4.0.0"},
		{"rolled out", upgrade("4.0.1", pod("a", "4.0.1", true), pod("b", "4.0.1", true)), "", configv1.ConditionFalse, "4.0.1"},
	} {
		d := decide(tc.l)
		if d.version != tc.reported || status(d, configv1.OperatorProgressing) != tc.progressing {
			t.Errorf("%s: version %q, Progressing %s; want %q, %s", tc.name, d.version, status(d, configv1.OperatorProgressing), tc.reported, tc.progressing)
		}
		if p := find(d.conds, configv1.OperatorProgressing); p.Status == configv1.ConditionTrue && p.Message != "Deploying 4.0.1, 1 of 2 pods ready" && tc.name != "spec not written" {
			t.Errorf("%s: Progressing says %q", tc.name, p.Message)
		}
	}
}

// The careless variant reports 4.0.1 while an old pod runs.
func TestDecideCareless(t *testing.T) {
	l := upgrade("4.0.1", pod("a", "4.0.1", false), pod("b", "4.0.0", true))
	l.cfg.Careless = true
	if d := decide(l); d.version != "4.0.1" {
		t.Errorf("careless: version %q, want 4.0.1", d.version)
	}
}

// Seed 001 honored 2: a rollout that has not moved for StallAfter is
// Degraded, and the deadline is the next look; a refused write at once.
func TestDecideDegraded(t *testing.T) {
	l := upgrade("4.0.1", pod("a", "4.0.1", false), pod("b", "4.0.0", true))
	if d := decide(l); status(d, configv1.OperatorDegraded) != configv1.ConditionFalse || !d.wake.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("moving: Degraded %s, wake %v", status(d, configv1.OperatorDegraded), d.wake)
	}
	l.now = t0.Add(10 * time.Minute)
	d := decide(l)
	if c := find(d.conds, configv1.OperatorDegraded); c.Status != configv1.ConditionTrue ||
		c.Message != "The rollout to 4.0.1 has not moved for 10m0s. It waits for pod a to become ready, pod b (still on 4.0.0) to go." {
		t.Errorf("stalled: %+v", c)
	}
	l.refused = []string{"DaemonSet agent (the error)"}
	l.now = t0.Add(time.Minute)
	if d := decide(l); status(d, configv1.OperatorDegraded) != configv1.ConditionTrue || !d.wake.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("refused: Degraded %s, wake %v", status(d, configv1.OperatorDegraded), d.wake)
	}
}

// Available: not before the first rollout ends (honored 1), then while
// every operand has a ready pod; Upgradeable False with the admin's text.
func TestDecideAvailableAndUpgradeable(t *testing.T) {
	l := upgrade("4.0.1", pod("a", "4.0.1", true))
	l.reached = ""
	if d := decide(l); status(d, configv1.OperatorAvailable) != configv1.ConditionFalse {
		t.Error("Available before the installation ended")
	}
	l = upgrade("4.0.1", pod("a", "4.0.1", false), pod("b", "4.0.0", false))
	l.snap.blocker = "Back up etcd first"
	d := decide(l)
	if c := find(d.conds, configv1.OperatorAvailable); c.Status != configv1.ConditionFalse || c.Message != "Deployment etcd has no ready pod" {
		t.Errorf("no ready pod: %+v", c)
	}
	if c := find(d.conds, configv1.OperatorUpgradeable); c.Status != configv1.ConditionFalse || c.Message != "Upgrades wait for the administrator: Back up etcd first" {
		t.Errorf("blocked: %+v", c)
	}
}

// A condition keeps its lastTransitionTime while its status stays, but
// Progressing's is stamped when the version moves; other types are kept.
func TestApplyTransitions(t *testing.T) {
	before := metav1.NewTime(t0)
	old := configv1.ClusterOperatorStatus{
		Conditions: []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: before},
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, LastTransitionTime: before},
			{Type: "Custom", Status: configv1.ConditionTrue, LastTransitionTime: before},
		},
		Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.0.0"}},
	}
	now := t0.Add(90 * time.Second)
	d := decision{version: "4.0.1", conds: []configv1.ClusterOperatorStatusCondition{
		cond(configv1.OperatorAvailable, configv1.ConditionTrue, "Serving", "x"),
		cond(configv1.OperatorProgressing, configv1.ConditionFalse, "UpToDate", "Deployed 4.0.1"),
		cond(configv1.OperatorDegraded, configv1.ConditionFalse, "Healthy", ""),
	}}
	next := d.apply(old, now)
	want := map[configv1.ClusterStatusConditionType]time.Time{
		configv1.OperatorAvailable: t0, configv1.OperatorProgressing: now, configv1.OperatorDegraded: now, "Custom": t0,
	}
	for _, c := range next.Conditions {
		if !c.LastTransitionTime.Time.Equal(want[c.Type]) {
			t.Errorf("%s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, want[c.Type])
		}
	}
	if len(next.Conditions) != 4 || operatorVersion(next) != "4.0.1" || !changed(old, next) {
		t.Errorf("status %+v", next)
	}
	if changed(next, d.apply(next, now.Add(time.Minute))) {
		t.Error("the same decision again changed the status")
	}
}
