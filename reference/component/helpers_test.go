package component

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

const m = time.Minute

func params(version string) Params { return DefaultParams("example", version) }

// dep is the Deployment "example": its spec asks for spec, written at
// updated.
func dep(replicas int, spec string, updated time.Duration, pods ...Pod) Operand {
	return Operand{Kind: Deployment, Name: "example", Replicas: replicas, Spec: Level{Version: spec}, Updated: at(updated), Pods: pods}
}

// ds is the DaemonSet "agent" on nodes.
func ds(nodes []string, spec string, updated time.Duration, pods ...Pod) Operand {
	return Operand{Kind: DaemonSet, Name: "agent", Nodes: nodes, Spec: Level{Version: spec}, Updated: at(updated), Pods: pods}
}

// pod is a pod at version, ready or not, last changed at since.
func pod(name, version string, ready bool, since time.Duration) Pod {
	return Pod{Name: name, Level: Level{Version: version}, Ready: ready, Since: at(since)}
}

func on(node string, p Pod) Pod { p.Node = node; return p }

func ready(n int, prefix, version string, since time.Duration) []Pod {
	var pods []Pod
	for i := range n {
		pods = append(pods, pod(prefix+string(rune('a'+i)), version, true, since))
	}
	return pods
}

// after is the status after one look: the last write, or the status as it
// stood when nothing was written.
func after(in Input, out Output) configv1.ClusterOperatorStatus {
	if len(out.Writes) == 0 {
		return in.Status
	}
	return out.Writes[len(out.Writes)-1]
}

// look1 is the status after one look.
func look1(p Params, in Input, now time.Time) configv1.ClusterOperatorStatus {
	return after(in, p.Step(in, now))
}

// settle is the status a look writes, to start a case from: the
// operator's memory as an earlier look (or an earlier process) left it.
func settle(t *testing.T, p Params, in Input, now time.Time) configv1.ClusterOperatorStatus {
	t.Helper()
	out := p.Step(in, now)
	if len(out.Writes) != 1 {
		t.Fatalf("settling: %d writes, want 1", len(out.Writes))
	}
	return out.Writes[0]
}

func get(s configv1.ClusterOperatorStatus, typ configv1.ClusterStatusConditionType) configv1.ClusterOperatorStatusCondition {
	c, _ := condition(s.Conditions, typ)
	return c
}

// installed is the status of a component whose first rollout of version
// completed at ready: three replicas of the Deployment.
func installed(t *testing.T, version string, done time.Duration) configv1.ClusterOperatorStatus {
	t.Helper()
	start := settle(t, params(version), Input{Operands: []Operand{dep(3, "", 0)}}, at(0))
	return settle(t, params(version), Input{Status: start, Operands: []Operand{dep(3, version, 0, ready(3, "old-", version, done)...)}}, at(done))
}

// want is a condition as expected; an empty Reason or a zero LTT is not
// checked.
type want struct {
	status  configv1.ConditionStatus
	reason  string
	message string
	ltt     time.Duration
}

func check(t *testing.T, s configv1.ClusterOperatorStatus, typ configv1.ClusterStatusConditionType, w want) {
	t.Helper()
	c, ok := condition(s.Conditions, typ)
	if !ok {
		t.Errorf("no %s condition in %+v", typ, s.Conditions)
		return
	}
	if c.Status != w.status || (w.reason != "" && c.Reason != w.reason) || c.Message != w.message {
		t.Errorf("%s = %s/%s/%q, want %s/%s/%q", typ, c.Status, c.Reason, c.Message, w.status, w.reason, w.message)
	}
	if w.ltt != 0 && !c.LastTransitionTime.Time.Equal(at(w.ltt)) {
		t.Errorf("%s lastTransitionTime = %v, want %v", typ, c.LastTransitionTime.Sub(t0), w.ltt)
	}
}

func versions(pairs ...string) []configv1.OperandVersion {
	var vs []configv1.OperandVersion
	for i := 0; i+1 < len(pairs); i += 2 {
		vs = append(vs, configv1.OperandVersion{Name: pairs[i], Version: pairs[i+1]})
	}
	return vs
}
