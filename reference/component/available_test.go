package component

import (
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// 001 §What should an operator report, honored by components 1: not
// Available the first time until completely rolled out (a DaemonSet: its
// NodePercent of nodes); after that, Available while every operand
// serves. 001 §Conditions: one sentence, no punctuation.
func TestAvailable(t *testing.T) {
	nodes := []string{"n1", "n2", "n3"}
	pct60 := params("4.0.1")
	pct60.NodePercent = 60
	for _, tc := range []struct {
		name     string
		p        Params
		in       func(t *testing.T) Input
		want     want
		versions []configv1.OperandVersion
	}{
		{"install: nothing ready yet", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", false, 1*m))}}
			},
			want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.1", 0}, nil},
		{"install: 2 of 3 replicas ready", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", true, 1*m), pod("b", "4.0.1", true, 1*m), pod("c", "4.0.1", false, 1*m))}}
			},
			want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.1", 0}, nil},
		{"install: every replica ready at the target", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{dep(3, "4.0.1", 1*m, ready(3, "", "4.0.1", 1*m)...)}}
			},
			want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.1", 10 * m},
			versions("operator", "4.0.1", "example", "4.0.1")},
		{"install: every replica ready, a pod of another version left", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{dep(3, "4.0.1", 1*m, append(ready(3, "", "4.0.1", 1*m), pod("x", "4.0.0", false, 0))...)}}
			},
			want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.1", 0}, nil},
		{"install: a DaemonSet ready on 2 of 3 nodes", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{ds(nodes, "4.0.1", 1*m, on("n1", pod("a", "4.0.1", true, 1*m)), on("n2", pod("b", "4.0.1", true, 1*m)), on("n3", pod("c", "4.0.1", false, 1*m)))}}
			},
			want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.1", 0}, nil},
		{"install: a DaemonSet ready on every node", params("4.0.1"),
			func(*testing.T) Input {
				return Input{Operands: []Operand{ds(nodes, "4.0.1", 1*m, on("n1", pod("a", "4.0.1", true, 1*m)), on("n2", pod("b", "4.0.1", true, 1*m)), on("n3", pod("c", "4.0.1", true, 1*m)))}}
			},
			want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.1", 10 * m},
			versions("operator", "4.0.1", "agent", "4.0.1")},
		{"install: a DaemonSet on 2 of 3 nodes is 60% of them, rounded up", pct60,
			func(*testing.T) Input {
				return Input{Operands: []Operand{ds(nodes, "4.0.1", 1*m, on("n1", pod("a", "4.0.1", true, 1*m)), on("n2", pod("b", "4.0.1", true, 1*m)))}}
			},
			want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.1", 10 * m},
			versions("operator", "4.0.1", "agent", "4.0.1")},
		{"install: a DaemonSet on 1 of 3 nodes is below 60%", pct60,
			func(*testing.T) Input {
				return Input{Operands: []Operand{ds(nodes, "4.0.1", 1*m, on("n1", pod("a", "4.0.1", true, 1*m)))}}
			},
			want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.1", 0}, nil},
		{"upgrade: the previous version serves", params("4.0.1"),
			func(t *testing.T) Input {
				return Input{Status: installed(t, "4.0.0", 3*m),
					Operands: []Operand{dep(3, "4.0.1", 5*m, pod("a", "4.0.0", true, 3*m), pod("b", "4.0.0", true, 3*m), pod("c", "4.0.1", false, 6*m))}}
			},
			want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.0", 3 * m},
			versions("operator", "4.0.0", "example", "4.0.0")},
		{"after install: no ready pod is an outage", params("4.0.1"),
			func(t *testing.T) Input {
				return Input{Status: installed(t, "4.0.1", 3*m),
					Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", false, 9*m), pod("b", "4.0.1", false, 9*m))}}
			},
			want{configv1.ConditionFalse, ReasonOperandUnavailable, "Deployment example has no ready pods", 10 * m},
			versions("operator", "4.0.1", "example", "4.0.1")},
		{"after install: two operands down", params("4.0.1"),
			func(t *testing.T) Input {
				up := []Operand{dep(1, "4.0.1", 1*m, pod("a", "4.0.1", true, 1*m)), ds([]string{"n1"}, "4.0.1", 1*m, on("n1", pod("b", "4.0.1", true, 1*m)))}
				down := []Operand{dep(1, "4.0.1", 1*m, pod("a", "4.0.1", false, 9*m)), ds([]string{"n1"}, "4.0.1", 1*m, on("n1", pod("b", "4.0.1", false, 9*m)))}
				return Input{Status: settle(t, params("4.0.1"), Input{Operands: up}, at(3*m)), Operands: down}
			},
			want{configv1.ConditionFalse, ReasonOperandUnavailable, "Deployment example and DaemonSet agent have no ready pods", 10 * m},
			versions("operator", "4.0.1", "example", "4.0.1", "agent", "4.0.1")},
		{"after install: one ready pod of three serves", params("4.0.1"),
			func(t *testing.T) Input {
				return Input{Status: installed(t, "4.0.1", 3*m),
					Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", true, 1*m), pod("b", "4.0.1", false, 9*m))}}
			},
			want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.1", 3 * m},
			versions("operator", "4.0.1", "example", "4.0.1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := look1(tc.p, tc.in(t), at(10*m))
			check(t, s, configv1.OperatorAvailable, tc.want)
			if !slices.Equal(s.Versions, tc.versions) {
				t.Errorf("versions %v, want %v", s.Versions, tc.versions)
			}
		})
	}
}

// Available's transition time moves only with its status: an outage and
// the recovery each move it once.
func TestAvailableTransitions(t *testing.T) {
	p := params("4.0.1")
	s := installed(t, "4.0.1", 3*m)
	pods := func(r bool, since time.Duration) []Operand {
		return []Operand{dep(1, "4.0.1", 1*m, pod("a", "4.0.1", r, since))}
	}
	s = look1(p, Input{Status: s, Operands: pods(false, 9*m)}, at(10*m))
	check(t, s, configv1.OperatorAvailable, want{configv1.ConditionFalse, ReasonOperandUnavailable, "Deployment example has no ready pods", 10 * m})
	s = look1(p, Input{Status: s, Operands: pods(true, 11*m)}, at(12*m))
	check(t, s, configv1.OperatorAvailable, want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.1", 12 * m})
	check(t, s, configv1.OperatorProgressing, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 3 * m})
}
