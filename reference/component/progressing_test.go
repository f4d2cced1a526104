package component

import (
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// 001 §What should an operator report, honored by components 3:
// Progressing while rolling out new code or configuration, with the
// version in the message (001 §Conditions: 5 to 10 words); not while
// reconciling a state already reached.
func TestProgressing(t *testing.T) {
	withConfig := func(c string) func(Input) Input { return func(in Input) Input { in.Config = c; return in } }
	for _, tc := range []struct {
		name   string
		in     func(t *testing.T) Input
		now    time.Duration
		want   want
		writes int
		specs  []Spec
	}{
		{"install begins", func(*testing.T) Input { return Input{Operands: []Operand{dep(3, "", 0)}} }, 1 * m,
			want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated", 1 * m}, 1,
			[]Spec{{Deployment, "example", Level{Version: "4.0.1"}}}},
		{"install half way: the message counts, the transition stays", func(t *testing.T) Input {
			start := settle(t, params("4.0.1"), Input{Operands: []Operand{dep(3, "", 0)}}, at(1*m))
			return Input{Status: start, Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", true, 2*m), pod("b", "4.0.1", false, 2*m))}}
		}, 2 * m, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 1 of 3 pods updated", 1 * m}, 1, nil},
		{"upgrade begins", func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.0", 3*m), Operands: []Operand{dep(3, "4.0.0", 1*m, ready(3, "old-", "4.0.0", 3*m)...)}}
		}, 10 * m, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated", 10 * m}, 1,
			[]Spec{{Deployment, "example", Level{Version: "4.0.1"}}}},
		{"a new configuration is rolled out", func(t *testing.T) Input {
			return withConfig("c2")(Input{Status: installed(t, "4.0.1", 3*m), Operands: []Operand{dep(3, "4.0.1", 1*m, ready(3, "old-", "4.0.1", 3*m)...)}})
		}, 10 * m, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated", 10 * m}, 1,
			[]Spec{{Deployment, "example", Level{Version: "4.0.1", Config: "c2"}}}},
		{"a configuration rollout is followed to readiness", func(t *testing.T) Input {
			base := installed(t, "4.0.1", 3*m)
			cfg := dep(3, "4.0.1", 1*m, ready(3, "old-", "4.0.1", 3*m)...)
			rolling := settle(t, params("4.0.1"), withConfig("c2")(Input{Status: base, Operands: []Operand{cfg}}), at(10*m))
			o := dep(3, "4.0.1", 10*m, Pod{Name: "a", Level: Level{"4.0.1", "c2"}, Ready: true, Since: at(11 * m)},
				Pod{Name: "b", Level: Level{"4.0.1", "c2"}, Ready: true, Since: at(11 * m)}, Pod{Name: "c", Level: Level{"4.0.1", "c2"}, Since: at(11 * m)})
			o.Spec.Config = "c2"
			return withConfig("c2")(Input{Status: rolling, Operands: []Operand{o}})
		}, 12 * m, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 2 of 3 pods updated", 10 * m}, 1, nil},
		{"steady state after a restart is no progress", func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.1", 3*m), Operands: []Operand{dep(3, "4.0.1", 0, ready(3, "old-", "4.0.1", 3*m)...)}}
		}, 30 * m, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 3 * m}, 0, nil},
		{"a pod turning unready at a level reached is no progress", func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.1", 3*m), Operands: []Operand{dep(3, "4.0.1", 0,
				pod("old-a", "4.0.1", true, 3*m), pod("old-b", "4.0.1", true, 3*m), pod("old-c", "4.0.1", false, 29*m))}}
		}, 30 * m, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 3 * m}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in(t)
			out := params("4.0.1").Step(in, at(tc.now))
			check(t, after(in, out), configv1.OperatorProgressing, tc.want)
			if len(out.Writes) != tc.writes {
				t.Errorf("%d writes, want %d", len(out.Writes), tc.writes)
			}
			if !slices.Equal(out.Specs, tc.specs) {
				t.Errorf("specs %v, want %v", out.Specs, tc.specs)
			}
		})
	}
}

// 001 §Version reporting during an upgrade: the previous versions while
// any old pod runs or can run; the new ones once none can and the new
// version is rolled out (honored by components 5); on install, none before
// the first rollout completes.
func TestVersionReporting(t *testing.T) {
	old := []configv1.OperandVersion{{Name: "operator", Version: "4.0.0"}, {Name: "example", Version: "4.0.0"}}
	upgrade := func(spec string, pods ...Pod) func(t *testing.T) Input {
		return func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.0", 3*m), Operands: []Operand{dep(3, spec, 5*m, pods...)}}
		}
	}
	ownVersion := params("4.0.1")
	ownVersion.OperandVersions = map[string]string{"example": "1.12.4"}
	for _, tc := range []struct {
		name string
		p    Params
		in   func(t *testing.T) Input
		want []configv1.OperandVersion
	}{
		{"an old pod ready beside every new one", params("4.0.1"),
			upgrade("4.0.1", append(ready(3, "", "4.0.1", 6*m), pod("x", "4.0.0", true, 3*m))...), old},
		{"an old pod not ready still runs", params("4.0.1"),
			upgrade("4.0.1", append(ready(3, "", "4.0.1", 6*m), pod("x", "4.0.0", false, 6*m))...), old},
		{"every pod new, one not ready", params("4.0.1"),
			upgrade("4.0.1", pod("a", "4.0.1", true, 6*m), pod("b", "4.0.1", true, 6*m), pod("c", "4.0.1", false, 6*m)), old},
		{"every pod new but the spec still asks for the old version", params("4.0.1"),
			upgrade("4.0.0", ready(3, "", "4.0.1", 6*m)...), old},
		{"every pod new and ready", params("4.0.1"),
			upgrade("4.0.1", ready(3, "", "4.0.1", 6*m)...), versions("operator", "4.0.1", "example", "4.0.1")},
		{"an operand reports its own version", ownVersion,
			upgrade("1.12.4", ready(3, "", "1.12.4", 6*m)...), versions("operator", "4.0.1", "example", "1.12.4")},
		{"a DaemonSet's old pod on a node it left", params("4.0.1"), func(t *testing.T) Input {
			base := settle(t, params("4.0.0"), Input{Operands: []Operand{ds([]string{"n1", "n2"}, "4.0.0", 1*m,
				on("n1", pod("a", "4.0.0", true, 1*m)), on("n2", pod("b", "4.0.0", true, 1*m)))}}, at(2*m))
			return Input{Status: base, Operands: []Operand{ds([]string{"n1", "n2"}, "4.0.1", 5*m,
				on("n1", pod("c", "4.0.1", true, 6*m)), on("n2", pod("d", "4.0.1", true, 6*m)), on("n3", pod("e", "4.0.0", true, 1*m)))}}
		}, versions("operator", "4.0.0", "agent", "4.0.0")},
		{"install: none before complete", params("4.0.1"), func(*testing.T) Input {
			return Input{Operands: []Operand{dep(3, "4.0.1", 1*m, pod("a", "4.0.1", true, 2*m), pod("b", "4.0.1", true, 2*m))}}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := look1(tc.p, tc.in(t), at(10*m))
			if !slices.Equal(s.Versions, tc.want) {
				t.Errorf("versions %v, want %v", s.Versions, tc.want)
			}
		})
	}
}

// 001 §Version reporting during an upgrade: Progressing=False at an
// upgrade's completion, or never set True, "MUST set lastTransitionTime on
// Progressing to the current time" (kept to the second, as the API server
// keeps it).
func TestProgressingAtCompletion(t *testing.T) {
	// The operator moves to 4.0.1, its operand stays at 4.0.0.
	sameOperand := params("4.0.1")
	sameOperand.OperandVersions = map[string]string{"example": "4.0.0"}
	for _, tc := range []struct {
		name string
		p    Params
		in   func(t *testing.T) Input
		now  time.Time
		want want
	}{
		{"an upgrade completes", params("4.0.1"), func(t *testing.T) Input {
			mid := settle(t, params("4.0.1"), Input{Status: installed(t, "4.0.0", 3*m), Operands: []Operand{dep(3, "4.0.0", 1*m, ready(3, "old-", "4.0.0", 3*m)...)}}, at(10*m))
			return Input{Status: mid, Operands: []Operand{dep(3, "4.0.1", 10*m, ready(3, "", "4.0.1", 15*m)...)}}
		}, at(20 * m), want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 20 * m}},
		{"an upgrade that never needed Progressing", sameOperand, func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.0", 3*m), Operands: []Operand{dep(3, "4.0.0", 1*m, ready(3, "old-", "4.0.0", 3*m)...)}}
		}, at(20 * m), want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 20 * m}},
		{"a configuration rollout completes", params("4.0.1"), func(t *testing.T) Input {
			mid := settle(t, params("4.0.1"), Input{Status: installed(t, "4.0.1", 3*m), Config: "c2", Operands: []Operand{dep(3, "4.0.1", 1*m, ready(3, "old-", "4.0.1", 3*m)...)}}, at(10*m))
			o := dep(3, "4.0.1", 10*m, Pod{Name: "a", Level: Level{"4.0.1", "c2"}, Ready: true, Since: at(11 * m)})
			o.Spec.Config, o.Replicas = "c2", 1
			return Input{Status: mid, Config: "c2", Operands: []Operand{o}}
		}, at(20 * m), want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 20 * m}},
		{"completion within a second keeps whole seconds", params("4.0.1"), func(t *testing.T) Input {
			return Input{Status: installed(t, "4.0.0", 3*m), Operands: []Operand{dep(3, "4.0.1", 5*m, ready(3, "", "4.0.1", 6*m)...)}}
		}, at(20*m + 700*time.Millisecond), want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 20 * m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := look1(tc.p, tc.in(t), tc.now)
			check(t, s, configv1.OperatorProgressing, tc.want)
			if v := versionOf(s.Versions, OperatorVersion); v != "4.0.1" {
				t.Errorf("versions[operator] = %q, want 4.0.1 in the same write", v)
			}
		})
	}
}
