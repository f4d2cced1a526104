package component

import (
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// upgrading is the status of an upgrade to 4.0.1 begun at 10m from an
// install of 4.0.0.
func upgrading(t *testing.T, operands ...Operand) configv1.ClusterOperatorStatus {
	t.Helper()
	return settle(t, params("4.0.1"), Input{Status: installed(t, "4.0.0", 3*m), Operands: operands}, at(10*m))
}

// 001 §What should an operator report, honored by components 2, and 001
// §Conditions: Degraded (or Failing) True with a detailed message when the
// operator cannot accomplish its task, Progressing "Unable to apply"
// meanwhile; False with no message otherwise.
func TestDegraded(t *testing.T) {
	oldDep := dep(3, "4.0.0", 1*m, ready(3, "old-", "4.0.0", 3*m)...)
	stalled := dep(3, "4.0.1", 10*m, pod("old-a", "4.0.0", true, 3*m), pod("old-b", "4.0.0", true, 3*m), pod("old-c", "4.0.0", true, 3*m), pod("new-a", "4.0.1", false, 11*m))
	nodes := []string{"n1", "n2", "n3"}
	oldDS := ds(nodes, "4.0.0", 1*m, on("n1", pod("a", "4.0.0", true, 1*m)), on("n2", pod("b", "4.0.0", true, 1*m)), on("n3", pod("c", "4.0.0", true, 1*m)))
	stalledDS := ds(nodes, "4.0.1", 10*m, on("n1", pod("d", "4.0.1", true, 11*m)), on("n2", pod("b", "4.0.0", true, 1*m)))
	failing := params("4.0.1")
	failing.Degraded = Failing
	quick := params("4.0.1")
	quick.StuckAfter = 5 * m
	applyError := &ApplyError{Summary: "a required object is missing",
		Detail: "could not update deployment example because the resource type ExampleConfig has not been installed on the server"}
	stuckDep := "Deployment example has made no progress towards 4.0.1 in 10m0s, with 0 of 3 replicas updated and ready; " +
		"pod old-a runs 4.0.0, pod old-b runs 4.0.0, pod old-c runs 4.0.0, pod new-a is not ready, and 1 more."
	for _, tc := range []struct {
		name        string
		p           Params
		in          func(t *testing.T) Input
		now         time.Duration
		degraded    want
		progressing want
		next        time.Duration // 0: none
	}{
		{"an apply error, at once, retried after RetryAfter", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{oldDep}, ApplyError: applyError}
		}, 11 * m,
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: could not update deployment example because the resource type ExampleConfig has not been installed on the server.", 11 * m},
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: a required object is missing", 10 * m}, 12 * m},
		{"a rollout moving within StuckAfter", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{stalled}}
		}, 20*m + 59*time.Second,
			want{configv1.ConditionFalse, ReasonAsExpected, "", 0},
			want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated", 10 * m}, 21 * m},
		{"no progress for StuckAfter since the last pod changed", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{stalled}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, stuckDep, 21 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: deployment example is not progressing", 10 * m}, 0},
		{"StuckAfter is a parameter", quick, func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{stalled}}
		}, 16 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, "Deployment example has made no progress towards 4.0.1 in 5m0s, with 0 of 3 replicas updated and ready; " +
				"pod old-a runs 4.0.0, pod old-b runs 4.0.0, pod old-c runs 4.0.0, pod new-a is not ready, and 1 more.", 16 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: deployment example is not progressing", 10 * m}, 0},
		{"progress clears it", params("4.0.1"), func(t *testing.T) Input {
			stuck := settle(t, params("4.0.1"), Input{Status: upgrading(t, oldDep), Operands: []Operand{stalled}}, at(21*m))
			moved := dep(3, "4.0.1", 10*m, pod("old-a", "4.0.0", true, 3*m), pod("old-b", "4.0.0", true, 3*m), pod("new-a", "4.0.1", true, 22*m))
			return Input{Status: stuck, Operands: []Operand{moved}}
		}, 23 * m,
			want{configv1.ConditionFalse, ReasonAsExpected, "", 23 * m},
			want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 1 of 3 pods updated", 10 * m}, 32 * m},
		{"a DaemonSet's message names its nodes", params("4.0.1"), func(t *testing.T) Input {
			base := settle(t, params("4.0.0"), Input{Operands: []Operand{oldDS}}, at(2*m))
			return Input{Status: settle(t, params("4.0.1"), Input{Status: base, Operands: []Operand{oldDS}}, at(10*m)), Operands: []Operand{stalledDS}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, "DaemonSet agent has made no progress towards 4.0.1 in 10m0s, with 1 of 3 nodes updated and ready; node n2 runs 4.0.0, node n3 has no pod.", 21 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: daemonset agent is not progressing", 10 * m}, 0},
		{"a DaemonSet's node not ready, and a configuration", params("4.0.1"), func(t *testing.T) Input {
			base := settle(t, params("4.0.1"), Input{Operands: []Operand{ds(nodes[:2], "4.0.1", 1*m, on("n1", pod("a", "4.0.1", true, 1*m)), on("n2", pod("b", "4.0.1", true, 1*m)))}}, at(2*m))
			o := ds(nodes[:2], "4.0.1", 10*m, on("n1", Pod{Name: "c", Level: Level{"4.0.1", "c2"}, Since: at(11 * m)}), on("n2", pod("b", "4.0.1", true, 1*m)))
			o.Spec.Config = "c2"
			return Input{Status: base, Config: "c2", Operands: []Operand{o}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, "DaemonSet agent has made no progress towards 4.0.1 with configuration c2 in 10m0s, with 0 of 2 nodes updated and ready; node n1 is not ready, node n2 runs without configuration c2.", 21 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: daemonset agent is not progressing", 21 * m}, 0},
		{"a DaemonSet's older configuration, and an old pod on a node it left", params("4.0.1"), func(t *testing.T) Input {
			c1 := Pod{Name: "a", Node: "n1", Level: Level{"4.0.1", "c1"}, Ready: true, Since: at(1 * m)}
			before := ds(nodes[:1], "4.0.1", 1*m, c1)
			before.Spec.Config = "c1"
			base := settle(t, params("4.0.1"), Input{Config: "c1", Operands: []Operand{before}}, at(2*m))
			o := ds(nodes[:1], "4.0.1", 10*m, c1, on("n9", pod("e", "4.0.0", true, 1*m)))
			o.Spec.Config = "c2"
			return Input{Status: base, Config: "c2", Operands: []Operand{o}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, "DaemonSet agent has made no progress towards 4.0.1 with configuration c2 in 10m0s, with 0 of 1 node updated and ready; node n1 runs configuration c1, pod e on node n9 runs 4.0.0.", 21 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: daemonset agent is not progressing", 21 * m}, 0},
		{"two operands stuck", params("4.0.1"), func(t *testing.T) Input {
			base := settle(t, params("4.0.0"), Input{Operands: []Operand{oldDep, oldDS}}, at(2*m))
			return Input{Status: settle(t, params("4.0.1"), Input{Status: base, Operands: []Operand{oldDep, oldDS}}, at(10*m)), Operands: []Operand{stalled, stalledDS}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonOperandStuck, stuckDep + " DaemonSet agent has made no progress towards 4.0.1 in 10m0s, with 1 of 3 nodes updated and ready; node n2 runs 4.0.0, node n3 has no pod.", 21 * m},
			want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: 2 operands are not progressing", 10 * m}, 0},
		{"an apply error and a stuck operand", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{stalled}, ApplyError: &ApplyError{Detail: "could not update configmap example-config: the server is currently unable to handle the request"}}
		}, 21 * m,
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: could not update configmap example-config: the server is currently unable to handle the request. " + stuckDep, 21 * m},
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: an operand could not be updated", 10 * m}, 22 * m},
		{"an apply error with a summary only", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{oldDep}, ApplyError: &ApplyError{Summary: "a required object is missing"}}
		}, 11 * m,
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: a required object is missing.", 11 * m},
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: a required object is missing", 10 * m}, 12 * m},
		{"Failing, the older name, replaces Degraded", failing, func(t *testing.T) Input {
			return Input{Status: upgrading(t, oldDep), Operands: []Operand{oldDep}, ApplyError: applyError}
		}, 11 * m,
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: could not update deployment example because the resource type ExampleConfig has not been installed on the server.", 11 * m},
			want{configv1.ConditionTrue, ReasonApplyFailed, "Unable to apply 4.0.1: a required object is missing", 10 * m}, 12 * m},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in(t)
			out := tc.p.Step(in, at(tc.now))
			s := after(in, out)
			check(t, s, tc.p.withDefaults().Degraded, tc.degraded)
			check(t, s, configv1.OperatorProgressing, tc.progressing)
			if other := slices.ContainsFunc(s.Conditions, func(c configv1.ClusterOperatorStatusCondition) bool {
				return (c.Type == Failing || c.Type == configv1.OperatorDegraded) && c.Type != tc.p.withDefaults().Degraded
			}); other {
				t.Errorf("both Degraded and Failing in %v", s.Conditions)
			}
			var next time.Time
			if tc.next != 0 {
				next = at(tc.next)
			}
			if !out.Next.Equal(next) {
				t.Errorf("next %v, want %v", out.Next.Sub(t0), tc.next)
			}
		})
	}
}

// 001 §What should an operator report, honored by components 4:
// Upgradeable False with what the administrator must fix while a blocker
// stands; True with no message otherwise.
func TestUpgradeable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		blockers []Blocker
		want     want
	}{
		{"no blocker", nil, want{configv1.ConditionTrue, ReasonAsExpected, "", 0}},
		{"a blocker, its message capitalised", []Blocker{{Reason: "UnsupportedLogLevel", Message: "set spec.logLevel of operator config example to Normal, Debug or Trace"}},
			want{configv1.ConditionFalse, "UnsupportedLogLevel", "Set spec.logLevel of operator config example to Normal, Debug or Trace", 10 * m}},
		{"a reason that is not CamelCase", []Blocker{{Reason: "log level!", Message: "Set spec.logLevel to Normal"}},
			want{configv1.ConditionFalse, ReasonAdminActionRequired, "Set spec.logLevel to Normal", 10 * m}},
		{"a blocker without a message", []Blocker{{Reason: "NodesTooOld"}},
			want{configv1.ConditionFalse, "NodesTooOld", "An administrator must resolve NodesTooOld before an upgrade", 10 * m}},
		{"two blockers", []Blocker{{Reason: "UnsupportedLogLevel", Message: "Set spec.logLevel to Normal"}, {Reason: "NodesTooOld", Message: "upgrade the nodes to 4.0 first"}},
			want{configv1.ConditionFalse, ReasonMultipleBlockers, "Set spec.logLevel to Normal. Upgrade the nodes to 4.0 first.", 10 * m}},
		{"two blockers of one reason", []Blocker{{Reason: "NodesTooOld", Message: "Upgrade node n1 to 4.0"}, {Reason: "NodesTooOld", Message: "Upgrade node n2 to 4.0"}},
			want{configv1.ConditionFalse, "NodesTooOld", "Upgrade node n1 to 4.0. Upgrade node n2 to 4.0.", 10 * m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := look1(params("4.0.1"), Input{Status: installed(t, "4.0.1", 3*m), Blockers: tc.blockers,
				Operands: []Operand{dep(3, "4.0.1", 0, ready(3, "old-", "4.0.1", 3*m)...)}}, at(10*m))
			check(t, s, configv1.OperatorUpgradeable, tc.want)
		})
	}
}
