package component

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// second is a Deployment and a DaemonSet installed together, then a
// configuration rolled out under two blockers, stalled on both operands,
// completed, and an outage of the DaemonSet.
var second = func() []look {
	nodes := []string{"n1", "n2"}
	c2 := func(name string, r bool, since time.Duration) Pod {
		return Pod{Name: name, Level: Level{"4.0.1", "c2"}, Ready: r, Since: at(since)}
	}
	withConfig := func(o Operand) Operand { o.Spec.Config = "c2"; return o }
	blockers := []Blocker{{Reason: "UnsupportedLogLevel", Message: "Set spec.logLevel to Normal"}, {Reason: "NodesTooOld", Message: "Upgrade the nodes to 4.0 first"}}
	return []look{
		{1 * m, "4.0.1", Input{Operands: []Operand{dep(2, "", 0), ds(nodes, "", 0)}}},
		{2 * m, "4.0.1", Input{Operands: []Operand{dep(2, "4.0.1", 1*m, ready(2, "", "4.0.1", 2*m)...),
			ds(nodes, "4.0.1", 1*m, on("n1", pod("x", "4.0.1", true, 2*m)), on("n2", pod("y", "4.0.1", false, 2*m)))}}},
		{3 * m, "4.0.1", Input{Operands: []Operand{dep(2, "4.0.1", 1*m, ready(2, "", "4.0.1", 2*m)...),
			ds(nodes, "4.0.1", 1*m, on("n1", pod("x", "4.0.1", true, 2*m)), on("n2", pod("y", "4.0.1", true, 3*m)))}}},
		{4 * m, "4.0.1", Input{Config: "c2", Blockers: blockers, Operands: []Operand{dep(2, "4.0.1", 1*m, ready(2, "", "4.0.1", 2*m)...),
			ds(nodes, "4.0.1", 1*m, on("n1", pod("x", "4.0.1", true, 2*m)), on("n2", pod("y", "4.0.1", true, 3*m)))}}},
		{5 * m, "4.0.1", Input{Config: "c2", Blockers: blockers, Operands: []Operand{
			withConfig(dep(2, "4.0.1", 4*m, c2("c", false, 5*m), pod("b", "4.0.1", true, 2*m))),
			withConfig(ds(nodes, "4.0.1", 4*m, on("n1", c2("z", false, 5*m)), on("n2", pod("y", "4.0.1", true, 3*m))))}}},
		{20 * m, "4.0.1", Input{Config: "c2", Blockers: blockers, Operands: []Operand{
			withConfig(dep(2, "4.0.1", 4*m, c2("c", false, 5*m), pod("b", "4.0.1", true, 2*m))),
			withConfig(ds(nodes, "4.0.1", 4*m, on("n1", c2("z", false, 5*m)), on("n2", pod("y", "4.0.1", true, 3*m))))}}},
		{21 * m, "4.0.1", Input{Config: "c2", Operands: []Operand{
			withConfig(dep(2, "4.0.1", 4*m, c2("c", true, 21*m), c2("d", true, 21*m))),
			withConfig(ds(nodes, "4.0.1", 4*m, on("n1", c2("z", true, 21*m)), on("n2", c2("w", true, 21*m))))}}},
		{22 * m, "4.0.1", Input{Config: "c2", Operands: []Operand{
			withConfig(dep(2, "4.0.1", 4*m, c2("c", true, 21*m), c2("d", false, 22*m))),
			withConfig(ds(nodes, "4.0.1", 4*m, on("n1", c2("z", false, 22*m)), on("n2", c2("w", false, 22*m))))}}},
		{23 * m, "4.0.1", Input{Config: "c2", Operands: []Operand{
			withConfig(dep(2, "4.0.1", 4*m, c2("c", true, 21*m), c2("d", true, 23*m))),
			withConfig(ds(nodes, "4.0.1", 4*m, on("n1", c2("z", true, 23*m)), on("n2", c2("w", true, 23*m))))}}},
	}
}()

// Both stories, as the reference plays them.
func corpus() []played { return append(walk(story), walk(second)...) }

// 001 §Conditions and docs/upstream.md, "Kubernetes conditions in general": every
// condition the reference writes is valid and its message follows the
// seed's conventions; 001 §Status: one write per look, whose fields say
// the same thing.
func TestWritesAreValidAndAtomic(t *testing.T) {
	for i, pl := range corpus() {
		if len(pl.out.Writes) > 1 {
			t.Errorf("look %d (+%v): %d writes, want at most one (001 §Status)", i, pl.at, len(pl.out.Writes))
		}
		for _, w := range pl.out.Writes {
			for _, problem := range invalid(w, at(pl.at)) {
				t.Errorf("look %d (+%v): %s", i, pl.at, problem)
			}
		}
	}
}

// invalid lists what is wrong with a written status.
func invalid(s configv1.ClusterOperatorStatus, now time.Time) []string {
	var problems []string
	bad := func(c configv1.ClusterOperatorStatusCondition, why string) {
		problems = append(problems, string(c.Type)+" "+why+": "+string(c.Status)+"/"+c.Reason+"/"+c.Message)
	}
	types := map[configv1.ClusterStatusConditionType]int{}
	for _, c := range s.Conditions {
		types[c.Type]++
		switch c.Status {
		case configv1.ConditionTrue, configv1.ConditionFalse, configv1.ConditionUnknown:
		default:
			bad(c, "has a status neither True, False nor Unknown")
		}
		if !reasonPattern.MatchString(c.Reason) {
			bad(c, "has a reason that is not CamelCase")
		}
		if r := []rune(c.Message); len(r) > 0 && !unicode.IsUpper(r[0]) {
			bad(c, "has a message that does not start with a capital letter")
		}
		if c.LastTransitionTime.IsZero() || c.LastTransitionTime.After(now) || c.LastTransitionTime.Nanosecond() != 0 {
			bad(c, "has a lastTransitionTime that is not a whole second up to now")
		}
		switch {
		case c.Type == configv1.OperatorProgressing && (len(strings.Fields(c.Message)) < 5 || len(strings.Fields(c.Message)) > 10):
			bad(c, "has a message not of 5 to 10 words")
		case c.Type == configv1.OperatorAvailable && (c.Message == "" || strings.ContainsAny(c.Message[len(c.Message)-1:], ".!?") || strings.Contains(c.Message, ". ")):
			bad(c, "has a message that is not one sentence without punctuation")
		case c.Type == configv1.OperatorDegraded && (c.Status == configv1.ConditionTrue) == (c.Message == ""):
			bad(c, "has a message when False or none when True")
		case c.Type == configv1.OperatorUpgradeable && c.Status == configv1.ConditionFalse && c.Message == "":
			bad(c, "is False with no message")
		}
	}
	for _, typ := range []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable} {
		if types[typ] != 1 {
			problems = append(problems, fmt.Sprintf("%s written %d times", typ, types[typ]))
		}
	}
	// The fields are valid together: the version in the messages is the
	// version reported.
	if v := versionOf(s.Versions, OperatorVersion); v != "" {
		for _, c := range s.Conditions {
			if (c.Type == configv1.OperatorAvailable && c.Status == configv1.ConditionTrue ||
				c.Type == configv1.OperatorProgressing && c.Status == configv1.ConditionFalse) && !strings.HasSuffix(c.Message, " "+v) {
				bad(c, "names another version than versions[operator] "+v)
			}
		}
	}
	return problems
}

// The written status is a fixed point: looking again at once, or later
// before the deadline, with nothing changed writes nothing (no write, no
// moved lastTransitionTime, when nothing changed).
func TestNothingChangedWritesNothing(t *testing.T) {
	for i, pl := range corpus() {
		in := pl.in
		in.Status = pl.after
		p := params(pl.version)
		again := p.Step(in, at(pl.at))
		if len(again.Writes) != 0 {
			t.Errorf("look %d (+%v) again: writes %+v", i, pl.at, again.Writes[0].Conditions)
		}
		// An apply error's retry is counted from each look, so its
		// deadline moves with the look.
		later := at(pl.at + 30*time.Second)
		if in.ApplyError != nil || !pl.out.Next.IsZero() && pl.out.Next.Before(later) {
			continue
		}
		if out := p.Step(in, later); len(out.Writes) != 0 || !out.Next.Equal(pl.out.Next) {
			t.Errorf("look %d (+%v) 30s later: %d writes, next %v (was %v)", i, pl.at, len(out.Writes), out.Next.Sub(t0), pl.out.Next.Sub(t0))
		}
	}
}

// A restarted operator keeps no memory but its status: mid-rollout it
// writes nothing, asks for nothing, and counts the stall from the last
// pod's change, not from its own start.
func TestRestartMidRollout(t *testing.T) {
	mid := walk(story)[6] // +7m: one of three new pods ready, the last change at +7m
	in := mid.in
	in.Status = mid.after
	out := params("4.0.1").Step(in, at(15*m))
	if len(out.Writes) != 0 || len(out.Specs) != 0 {
		t.Errorf("restart wrote %v, asked for %v", out.Writes, out.Specs)
	}
	if !out.Next.Equal(at(17 * m)) {
		t.Errorf("next %v, want +17m0s (the last change at +7m0s and StuckAfter)", out.Next.Sub(t0))
	}
}

// Another writer's changes to the operator's conditions (a stale
// challenge, an Unknown mark of seed 000) are written back; a transition
// time moves only where a status changed. Conditions of other types are
// kept.
func TestOthersWritesAreAnswered(t *testing.T) {
	done := walk(story)[10]
	in := done.in
	foreignCond := configv1.ClusterOperatorStatusCondition{Type: configv1.EvaluationConditionsDetected, Status: configv1.ConditionFalse, Reason: "NoData", LastTransitionTime: metav1.NewTime(t0)}
	for _, tc := range []struct {
		name   string
		change func(*configv1.ClusterOperatorStatusCondition)
		moved  bool
	}{
		{"challenged", func(c *configv1.ClusterOperatorStatusCondition) {
			c.Message = "Operator checking for stale status, the active operator will reset this message: " + c.Message
		}, false},
		{"marked Unknown", func(c *configv1.ClusterOperatorStatusCondition) {
			c.Status, c.LastTransitionTime = configv1.ConditionUnknown, metav1.NewTime(at(40*m))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in.Status = *done.after.DeepCopy()
			for i := range in.Status.Conditions {
				tc.change(&in.Status.Conditions[i])
			}
			in.Status.Conditions = append(in.Status.Conditions, foreignCond)
			out := params("4.0.1").Step(in, at(50*m))
			if len(out.Writes) != 1 {
				t.Fatalf("%d writes, want 1", len(out.Writes))
			}
			w := out.Writes[0]
			for _, c := range done.after.Conditions {
				got := get(w, c.Type)
				if got.Status != c.Status || got.Message != c.Message {
					t.Errorf("%s = %s/%q, want %s/%q back", c.Type, got.Status, got.Message, c.Status, c.Message)
				}
				if wantLTT := map[bool]time.Time{false: c.LastTransitionTime.Time, true: at(50 * m)}[tc.moved]; !got.LastTransitionTime.Time.Equal(wantLTT) {
					t.Errorf("%s lastTransitionTime %v, want %v", c.Type, got.LastTransitionTime.Sub(t0), wantLTT.Sub(t0))
				}
			}
			if got := get(w, configv1.EvaluationConditionsDetected); got != foreignCond {
				t.Errorf("another's condition became %+v", got)
			}
		})
	}
}
