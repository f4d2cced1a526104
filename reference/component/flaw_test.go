package component

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	configv1 "github.com/openshift/api/config/v1"
)

// restart is the story, then a restart of the operator at rest at +40m
// (its new process's first look), the look its own write wakes at the same
// instant, and a quiet look at +50m.
var restart = append(slices.Clone(story),
	look{40 * m, "4.0.1", Input{FirstLook: true, Operands: story[11].in.Operands}},
	look{40 * m, "4.0.1", Input{Operands: story[11].in.Operands}},
	look{50 * m, "4.0.1", Input{Operands: story[11].in.Operands}},
)

// detour is the story with two looks more: at +2m30s every replica has
// its pod, one not ready yet, and at +4m a second look, the one the
// status written for the blocker wakes.
var detour = slices.Concat(story[:2], []look{
	{150 * time.Second, "4.0.0", Input{Operands: []Operand{dep(3, "4.0.0", 1*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", true, 150*time.Second), pod("c", "4.0.0", false, 150*time.Second))}}},
}, story[2:4], story[3:])

// availableFields and lateFields are what flaws of Available and of the
// versions' timing change.
var (
	availableFields = []string{"Available.status", "Available.reason", "Available.message", "Available.lastTransitionTime"}
	lateFields      = append([]string{"versions", "next"}, append(slices.Clone(availableFields),
		"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime")...)
)

// flawCases name, for each flaw in Flaws() order, the fields it changes
// and the looks of its script (story unless named) where it shows.
var flawCases = []struct {
	flaw    Flaw
	section string
	fields  []string
	looks   []int  // indices into script where it shows
	script  []look // story when nil
}{
	{EarlyVersion, "001 §Version reporting during an upgrade", []string{"versions", "Available.message"}, []int{5, 6, 7, 8, 9}, nil},
	{NeverProgressing, "001 §What should an operator report, honored by components 3",
		[]string{"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime"}, []int{0, 1, 4, 5, 6, 7, 8, 9}, nil},
	{EarlyAvailable, "001 §What should an operator report, honored by components 1",
		[]string{"Available.status", "Available.reason", "Available.message", "Available.lastTransitionTime"}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{SplitWrite, "001 §Status", []string{"split"}, []int{2, 10}, nil},
	{SilentUpgradeable, "001 §What should an operator report, honored by components 4", []string{"Upgradeable.message"}, []int{3}, nil},
	{SilentDegraded, "001 §Conditions", []string{"Degraded.message"}, []int{7, 8}, nil},
	{StaleCompletion, "001 §Version reporting during an upgrade", []string{"Progressing.lastTransitionTime"}, []int{2, 3, 10, 11}, nil},
	// Stuck at +20m: Degraded stays False; at +21m the apply error alone
	// degrades, so the message lacks the stall and the transition is later.
	{NeverDegraded, "001 §What should an operator report, honored by components 2",
		[]string{"Degraded.status", "Degraded.reason", "Degraded.message", "Degraded.lastTransitionTime"}, []int{7, 8}, nil},
	// The blocker at +4m is not reported; Upgradeable never transitions after.
	{IgnoresBlockers, "001 §What should an operator report, honored by components 4",
		[]string{"Upgradeable.status", "Upgradeable.reason", "Upgradeable.message", "Upgradeable.lastTransitionTime"}, []int{3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// The restart at rest turns Progressing True; the next look sets it
	// False, stamped, where the reference wrote nothing.
	{ProgressingAtRest, "001 §What should an operator report, honored by components 3",
		[]string{"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime"}, []int{12, 13, 14}, restart},
	// From the completion at +23m on, versions[operator] and the messages
	// naming it stay 4.0.0, through the restart.
	{KeepsOldVersion, "001 §Version reporting during an upgrade, honored by components 5",
		[]string{"versions", "Available.message", "Progressing.message"}, []int{10, 11, 12, 13, 14}, restart},
	{LowercaseMessages, "001 §Conditions",
		[]string{"Available.message", "Progressing.message", "Degraded.message", "Upgradeable.message"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{WordyProgressing, "001 §Conditions", []string{"Progressing.message"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{PunctuatedAvailable, "001 §Conditions", []string{"Available.message"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// Every write from +2m on stamps conditions the reference keeps; the
	// first write stamps them all anyway.
	{ChurnsTransitions, "docs/upstream.md, Kubernetes conditions in general",
		[]string{"Available.lastTransitionTime", "Progressing.lastTransitionTime", "Degraded.lastTransitionTime", "Upgradeable.lastTransitionTime"},
		[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{SpacedReason, "docs/upstream.md, Kubernetes conditions in general",
		[]string{"Available.reason", "Progressing.reason", "Degraded.reason", "Upgradeable.reason"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// At +2m30s every replica has its pod, c not ready: Available, whose
	// transition stays there.
	{AvailableOnCreation, "001 §What should an operator report, honored by components 1", availableFields, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, detour},
	// 4.0.0 from the spec's write at +1m on: Available with b unready at
	// +2m, False OperandUnavailable before.
	{InstallVersionEarly, "001 §What should an operator report, honored by components 5",
		append([]string{"versions"}, availableFields...), []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// At +22m only c, old, is left.
	{VersionShortOne, "001 §Version reporting during an upgrade", []string{"versions", "Available.message"}, []int{9}, nil},
	// The install completes at +3m and the upgrade at +23m, each reported
	// at the next look; the transitions it stamps stay later ever after.
	{VersionAtResync, "001 §Version reporting during an upgrade", lateFields, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// Progressing False, to look again 3s later, at each rollout's looks
	// before the first that finds it True; its transition later ever after.
	{ProgressingLate40s, "001 §Conditions",
		[]string{"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime", "next"}, []int{0, 1, 4, 5, 6, 7, 8, 9}, nil},
	{UnversionedProgressing, "001 §What should an operator report, honored by components 3", []string{"Progressing.message"}, []int{0, 1, 4, 5, 6, 9}, nil},
	// True from the blocker at +4m; the upgrade keeps it True, from then.
	{ProgressingOnBlocker, "001 §What should an operator report, honored by components 3",
		[]string{"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime"}, []int{3, 4, 5, 6, 7, 8, 9}, nil},
	{StampEarly1s, "001 §Version reporting during an upgrade", []string{"Progressing.lastTransitionTime"}, []int{2, 3, 10, 11}, nil},
	{StampRolloutStart, "001 §Version reporting during an upgrade", []string{"Progressing.lastTransitionTime"}, []int{2, 3, 10, 11}, nil},
	// Only the deadlines move in the story: its stall is found at +20m,
	// long after either threshold.
	{DegradedLate1m, "001 §What should an operator report, honored by components 2", []string{"next"}, []int{1, 5, 6, 9}, nil},
	{DegradedUnknown, "001 §What should an operator report, honored by components 2", []string{"Degraded.status", "Degraded.lastTransitionTime"}, []int{7, 8}, nil},
	{TerseDegraded, "001 §Conditions", []string{"Degraded.message"}, []int{7, 8}, nil},
	// The stall alone at +20m; the apply error at +21m is said as the
	// reference says it.
	{NounDegraded, "001 §Conditions", []string{"Degraded.message"}, []int{7}, nil},
	{NameFirstAvailable, "001 §Conditions", []string{"Available.message"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{PodListProgressing, "001 §Conditions", []string{"Progressing.message"}, []int{0, 1, 4, 5, 6, 9}, nil},
	{DetailedStuckProgressing, "001 §Conditions", []string{"Progressing.message"}, []int{7}, nil},
	{TwoSentenceAvailable, "001 §Conditions", []string{"Available.message"}, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	{EllipsisInstalling, "001 §Conditions", []string{"Available.message"}, []int{0, 1}, nil},
	// The second look at +4m drops the message the first wrote.
	{TransientUpgradeable, "001 §What should an operator report, honored by components 4", []string{"Upgradeable.message"}, []int{5}, detour},
	// False at every look of a rollout, the install's and the upgrade's.
	{UpgradeableWhileRolling, "001 §What should an operator report, honored by components 4",
		[]string{"Upgradeable.status", "Upgradeable.reason", "Upgradeable.lastTransitionTime"}, []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// The completion at +23m says 4.0.0; the next look, at +30m, 4.0.1.
	{StaleRestMessage, "001 §Status", []string{"Progressing.message"}, []int{10}, nil},
	// False through the upgrade, +5m to its completion at +23m; True
	// again from then, transitioned there.
	{UnavailableWhileRolling, "001 §Conditions", availableFields, []int{4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// Every rollout's looks after the one that turned Progressing True.
	{ProgressingDropsVersion, "001 §What should an operator report, honored by components 3", []string{"Progressing.message"}, []int{1, 5, 6, 9}, nil},
	// The blocker of +4m is gone at +5m: False ever after.
	{StaysBlocked, "001 §What should an operator report, honored by components 4",
		[]string{"Upgradeable.status", "Upgradeable.reason", "Upgradeable.message", "Upgradeable.lastTransitionTime"}, []int{4, 5, 6, 7, 8, 9, 10, 11}, nil},
	// The apply error at +21m: Degraded says the stall alone, as at +20m.
	{SilentOnApplyErrors, "001 §What should an operator report, honored by components 2", []string{"Degraded.reason", "Degraded.message"}, []int{8}, nil},
}

// Each flaw deviates from the reference in exactly the fields named, at
// the looks named, over the same story; everything else it writes, asks
// for and waits for is the reference's.
func TestFlawsDeviateOnlyAsNamed(t *testing.T) {
	for _, tc := range flawCases {
		t.Run(string(tc.flaw), func(t *testing.T) {
			script := tc.script
			if script == nil {
				script = story
			}
			ref, got := walk(script), walk(script, tc.flaw)
			var shown []int
			for i := range script {
				d := differences(ref[i], got[i])
				if len(d) == 0 {
					continue
				}
				shown = append(shown, i)
				for _, f := range d {
					if !slices.Contains(tc.fields, f) {
						t.Errorf("look %d (+%v): %s differs, beyond %s (%s)", i, script[i].at, f, strings.Join(tc.fields, ", "), tc.section)
					}
				}
			}
			if !slices.Equal(shown, tc.looks) {
				t.Errorf("deviates at looks %v, want %v", shown, tc.looks)
			}
		})
	}
}

// Every flaw is listed, in a stable order, with a case above, and none is
// in the reference.
func TestFlawsListed(t *testing.T) {
	var cased []Flaw
	for _, tc := range flawCases {
		cased = append(cased, tc.flaw)
	}
	if !slices.Equal(Flaws(), cased) {
		t.Errorf("Flaws() = %v, want %v", Flaws(), cased)
	}
	for _, f := range Flaws() {
		if DefaultParams("example", "4.0.1").has(f) {
			t.Errorf("the reference has %s", f)
		}
	}
}

// SplitWrite's two updates at a completion: the new conditions with the
// old versions first, a status that is not valid together (001 §Status),
// then both.
func TestSplitWriteOrder(t *testing.T) {
	ref, got := walk(story), walk(story, SplitWrite)
	const completion = 10
	w := got[completion].out.Writes
	if len(w) != 2 {
		t.Fatalf("%d writes at the completion, want 2", len(w))
	}
	if !sameConditions(w[0].Conditions, ref[completion].after.Conditions) || !sameVersions(w[0].Versions, ref[completion].in.Status.Versions) {
		t.Errorf("first write %+v, want the new conditions with the old versions", w[0])
	}
	if !sameConditions(w[1].Conditions, ref[completion].after.Conditions) || !sameVersions(w[1].Versions, ref[completion].after.Versions) {
		t.Errorf("second write %+v, want the reference's status", w[1])
	}
}

// The flaws in how conditions read break, in every write they make, the
// convention their rule judges, not only the reference's texts.
func TestFlawsBreakTheirConvention(t *testing.T) {
	type cond = configv1.ClusterOperatorStatusCondition
	all := []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable}
	for _, tc := range []struct {
		flaw    Flaw
		section string
		types   []configv1.ClusterStatusConditionType
		breaks  func(c cond, now time.Time) bool // c, written at now, breaks the convention
	}{
		{LowercaseMessages, "001 §Conditions: start with a capital letter", all, func(c cond, _ time.Time) bool {
			r, _ := utf8.DecodeRuneInString(c.Message)
			return c.Message == "" || unicode.IsLower(r)
		}},
		{WordyProgressing, "001 §Conditions: 5-10 words", all[1:2], func(c cond, _ time.Time) bool {
			return len(strings.Fields(c.Message)) > 10
		}},
		{PunctuatedAvailable, "001 §Conditions: a single sentence without punctuation", all[:1], func(c cond, _ time.Time) bool {
			return strings.HasSuffix(c.Message, ".")
		}},
		{ChurnsTransitions, "docs/upstream.md, Kubernetes conditions in general: lastTransitionTime moves with the status", all, func(c cond, now time.Time) bool {
			return c.LastTransitionTime.Time.Equal(now)
		}},
		// A one-word reason has no space to lose.
		{SpacedReason, "docs/upstream.md, Kubernetes conditions in general: CamelCase reasons", all, func(c cond, _ time.Time) bool {
			return !validReason(c.Reason) || c.Reason == ReasonInstalling
		}},
	} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			for _, pl := range walk(restart, tc.flaw) {
				for _, w := range pl.out.Writes {
					for _, typ := range tc.types {
						if c := get(w, typ); !tc.breaks(c, at(pl.at)) {
							t.Errorf("look +%v: %s %s/%s/%q since %v keeps to %s", pl.at, typ, c.Status, c.Reason, c.Message, c.LastTransitionTime.Sub(t0), tc.section)
						}
					}
				}
			}
		})
	}
}

// ProgressingAtRest shows at a process's first look that finds nothing to
// roll out and Progressing not True; mid-rollout or on install its first
// look is the reference's, and the reference never reads FirstLook.
func TestProgressingAtRestTrigger(t *testing.T) {
	ref := walk(story)
	resume := func(pl played, first bool) Input {
		in := pl.in
		in.Status, in.FirstLook = pl.after, first
		return in
	}
	atRest, rolling := ref[11], ref[6] // 4.0.1 reached; 1 of 3 new pods ready
	for _, tc := range []struct {
		name   string
		flaws  []Flaw
		in     Input
		now    time.Duration
		writes int
		want   want
	}{
		{"restart at rest", []Flaw{ProgressingAtRest}, resume(atRest, true), 40 * m, 1,
			want{configv1.ConditionTrue, reasonReconciling, "Reconciling component example at version 4.0.1", 40 * m}},
		{"a later look at rest", []Flaw{ProgressingAtRest}, resume(atRest, false), 40 * m, 0,
			want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 23 * m}},
		{"restart mid-rollout", []Flaw{ProgressingAtRest}, resume(rolling, true), 8 * m, 0,
			want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 1 of 3 pods updated", 5 * m}},
		{"first start, on install", []Flaw{ProgressingAtRest}, Input{FirstLook: true, Operands: []Operand{dep(3, "", 0)}}, 1 * m, 1,
			want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated", 1 * m}},
		{"the reference restarted at rest", nil, resume(atRest, true), 40 * m, 0,
			want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 23 * m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := params("4.0.1")
			p.Flaws = tc.flaws
			out := p.Step(tc.in, at(tc.now))
			if len(out.Writes) != tc.writes {
				t.Errorf("%d writes, want %d", len(out.Writes), tc.writes)
			}
			check(t, after(tc.in, out), configv1.OperatorProgressing, tc.want)
		})
	}
}

// What the flaws of a message or a transition time write, at a look of
// their script where they show: the deviation the rule it breaks judges.
func TestFlawedConditions(t *testing.T) {
	const stuckDetail = "Deployment example has made no progress towards 4.0.1 in 10m0s, with 1 of 3 replicas updated and ready; pod b runs 4.0.0, pod c runs 4.0.0, 2 replicas have no updated pod."
	for _, tc := range []struct {
		flaw   Flaw
		script []look // story when nil
		look   int
		typ    configv1.ClusterStatusConditionType
		want   want
	}{
		{NounDegraded, nil, 7, configv1.OperatorDegraded, want{configv1.ConditionTrue, ReasonOperandStuck, "deployment example stuck", 20 * m}},
		{TerseDegraded, nil, 7, configv1.OperatorDegraded, want{configv1.ConditionTrue, ReasonOperandStuck, "OperandStuck", 20 * m}},
		{DegradedUnknown, nil, 7, configv1.OperatorDegraded, want{configv1.ConditionUnknown, ReasonOperandStuck, stuckDetail, 20 * m}},
		{DetailedStuckProgressing, nil, 7, configv1.OperatorProgressing, want{configv1.ConditionTrue, ReasonOperandStuck, "Unable to apply 4.0.1: " + stuckDetail, 5 * m}},
		{PodListProgressing, nil, 0, configv1.OperatorProgressing, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.0: 0 of 3 pods updated, waiting for new pods", 1 * m}},
		{PodListProgressing, nil, 5, configv1.OperatorProgressing, want{configv1.ConditionTrue, ReasonRollingOut, "Working towards 4.0.1: 0 of 3 pods updated, waiting for a, b, c and d", 5 * m}},
		{UnversionedProgressing, nil, 5, configv1.OperatorProgressing, want{configv1.ConditionTrue, ReasonRollingOut, "Rolling out: 0 of 3 pods updated", 5 * m}},
		{ProgressingOnBlocker, nil, 3, configv1.OperatorProgressing, want{configv1.ConditionTrue, reasonReconciling, "Reconciling the administrator's upgrade blocker", 4 * m}},
		// The upgrade's first look, at +5m: still at rest, to look again at +5m3s.
		{ProgressingLate40s, nil, 4, configv1.OperatorProgressing, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.0", 3 * m}},
		{TwoSentenceAvailable, nil, 2, configv1.OperatorAvailable, want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.0. All operands are ready", 3 * m}},
		{EllipsisInstalling, nil, 0, configv1.OperatorAvailable, want{configv1.ConditionFalse, ReasonInstalling, "Component example has not yet deployed 4.0.0...", 1 * m}},
		{NameFirstAvailable, nil, 0, configv1.OperatorAvailable, want{configv1.ConditionFalse, ReasonInstalling, "example has not yet deployed 4.0.0", 1 * m}},
		{AvailableOnCreation, detour, 2, configv1.OperatorAvailable, want{configv1.ConditionTrue, ReasonAsExpected, "Component example has deployed 4.0.0", 150 * time.Second}},
		// The blocker's False, from +4m, kept by the upgrade's rollout.
		{UpgradeableWhileRolling, nil, 5, configv1.OperatorUpgradeable, want{configv1.ConditionFalse, ReasonRollingOut, "", 4 * m}},
		{TransientUpgradeable, detour, 5, configv1.OperatorUpgradeable, want{configv1.ConditionFalse, "UnsupportedLogLevel", "", 4 * m}},
		{StampEarly1s, nil, 10, configv1.OperatorProgressing, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 23*m - time.Second}},
		{StaleRestMessage, nil, 10, configv1.OperatorProgressing, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.0", 23 * m}},
		{StampRolloutStart, nil, 10, configv1.OperatorProgressing, want{configv1.ConditionFalse, ReasonAsExpected, "Component example is at version 4.0.1", 5 * m}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.flaw, tc.look), func(t *testing.T) {
			script := tc.script
			if script == nil {
				script = story
			}
			check(t, walk(script, tc.flaw)[tc.look].after, tc.typ, tc.want)
		})
	}
}

// AvailableOnCreation counts an installation complete once every replica,
// or node, has a pod at the target, ready or not, and no old pod is left.
func TestCreated(t *testing.T) {
	nodes := []string{"n1", "n2"}
	for _, tc := range []struct {
		name    string
		operand Operand
		want    bool
	}{
		{"every replica created, none ready", dep(2, "4.0.1", 0, pod("a", "4.0.1", false, 0), pod("b", "4.0.1", false, 0)), true},
		{"a replica without a pod", dep(2, "4.0.1", 0, pod("a", "4.0.1", true, 0)), false},
		{"an old pod left", dep(2, "4.0.1", 0, pod("a", "4.0.1", false, 0), pod("b", "4.0.1", false, 0), pod("c", "4.0.0", true, 0)), false},
		{"the spec not written", dep(2, "", 0), false},
		{"a pod on every node", ds(nodes, "4.0.1", 0, on("n1", pod("a", "4.0.1", false, 0)), on("n2", pod("b", "4.0.1", false, 0))), true},
		{"two pods on one node", ds(nodes, "4.0.1", 0, on("n1", pod("a", "4.0.1", false, 0)), on("n1", pod("b", "4.0.1", false, 0))), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := params("4.0.1")
			if got := created([]rollout{p.survey(tc.operand, "")}); got != tc.want {
				t.Errorf("created = %v, want %v", got, tc.want)
			}
		})
	}
}
