package stale

import (
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale/faithful"
	"github.com/opcert/opcert/reference/operator"
	"github.com/opcert/opcert/reference/stale"
)

// detectorImpl makes a detector subject's params and decision core from
// the run's params.
type detectorImpl func(stale.Params) (stale.Params, decideFunc)

// operatorImpl makes an operator subject's answer delay (from the
// scenario's) and its comparison of live and wanted conditions (nil: the
// reference's).
type operatorImpl func(delay time.Duration) (time.Duration, compareFunc)

type compareFunc = func(configv1.ClusterOperatorStatusCondition, operator.Condition) bool

// Detector subjects: the reference and variants broken on purpose, each
// with a fault a real detector could have, so every detector rule is shown
// to fail on something.
var detectors = []conformance.Subject{
	{Name: "reference", Description: "reference/stale, exactly as the seed reads", Impl: core(stale.Step)},
	{Name: "eager", Description: "challenges after 5 minutes instead of 10 (fails STALE-001)", Impl: challengeAfter(5 * time.Minute)},
	{Name: "lazy", Description: "challenges after 15 minutes instead of 10 (fails STALE-002)", Impl: challengeAfter(15 * time.Minute)},
	{Name: "paraphrase", Description: "uses an earlier upstream challenge text (fails STALE-003)", Impl: core(withPrefix(upstreamPrefix))},
	{Name: "lenient", Description: "never sets anything Unknown (fails STALE-004)", Impl: core(lenient)},
	{Name: "stubborn", Description: "does not notice answers once it has challenged (fails STALE-005)", Impl: core(stubborn)},
	{Name: "chatty", Description: "challenges again every minute until answered (fails STALE-006)", Impl: core(chatty)},
	{Name: "early-1s", Description: "challenges 1s before the threshold (fails STALE-001)", Impl: shifted(-time.Second, 0)},
	{Name: "late-31s", Description: "challenges 31s after the threshold, 1s past the 30s reaction bound (fails STALE-002)", Impl: shifted(31*time.Second, 0)},
	{Name: "mark-early-1s", Description: "sets Unknown 1s before the second threshold (fails STALE-004, STALE-005)", Impl: shifted(0, -time.Second)},
	{Name: "mark-late-31s", Description: "sets Unknown 31s after the second threshold, 1s past the 30s reaction bound (fails STALE-004)", Impl: shifted(0, 31*time.Second)},
	{Name: "amnesiac", Description: "dates a ClusterOperator it sees for the first time from that look, not from its transition times: a new detector waits 10 more minutes (fails STALE-002)", Impl: core(amnesiac)},
	{Name: "transitions-only", Description: "counts only a moved lastTransitionTime as movement, missing message-only changes (fails STALE-001)", Impl: core(transitionsOnly)},
	{Name: "no-space", Description: "challenges with the seed's text less its trailing space (fails STALE-003)", Impl: core(withPrefix(strings.TrimSuffix(stale.ChallengePrefix, " ")))},
	{Name: "retimes", Description: "moves lastTransitionTime when it challenges (fails STALE-003)", Impl: core(retimes)},
	{Name: "old-list", Description: "does not watch Failing, Degraded's older name (fails STALE-003)", Impl: core(oldList)},
	{Name: "silent-challenge", Description: "writes no challenge, waits its 10 minutes, then sets Unknown (fails STALE-002, STALE-005)", Impl: core(silentChallenge)},
	{Name: "rewrites", Description: "writes its challenge again, unchanged, a minute later (fails STALE-006)", Impl: core(rewrites)},
	{Name: "remarks", Description: "writes its Unknown mark again, unchanged, every 10 minutes (fails STALE-006)", Impl: core(remarks)},
	// Faithful variants (conformance/stale/faithful), written from the
	// seed: they must fail no rule.
	{Name: "resync-20s", Faithful: true,
		Description: "written from the seed: looks at every ClusterOperator every 20s from its start and acts at the first look past a deadline (challenges and marks up to 20s late, within the 30s bound); keeps the list's order and the reasons",
		Impl:        faithfulDetector(faithful.DetectorOptions{Resync: 20 * time.Second})},
	{Name: "own-reason", Faithful: true,
		Description: "written from the seed: asks to be called 5s after each deadline, marks with a reason of its own (StatusNotUpdated), writes status.conditions in type order",
		Impl:        faithfulDetector(faithful.DetectorOptions{Grace: 5 * time.Second, MarkReason: "StatusNotUpdated", Sorted: true})},
}

// Operator subjects.
var operators = []conformance.Subject{
	{Name: "reference", Description: "reference/operator: puts its conditions back after the scenario's answer delay",
		Impl: operatorImpl(func(d time.Duration) (time.Duration, compareFunc) { return d, nil })},
	{Name: "slow", Description: "answers challenges after 45s (fails STALE-007)",
		Impl: operatorImpl(func(time.Duration) (time.Duration, compareFunc) { return 45 * time.Second, nil })},
	{Name: "deaf", Description: "compares statuses only, so never notices a challenge (fails STALE-007, STALE-008)",
		Impl: operatorImpl(func(d time.Duration) (time.Duration, compareFunc) { return d, statusOnly })},
	{Name: "slow-31s", Description: "answers challenges after 31s, 1s over the budget (fails STALE-007)",
		Impl: operatorImpl(func(time.Duration) (time.Duration, compareFunc) { return 31 * time.Second, nil })},
	{Name: "answers-late", Description: "answers challenges 10m1s after them, 1s after it is set Unknown (fails STALE-007, STALE-008)",
		Impl: operatorImpl(func(time.Duration) (time.Duration, compareFunc) { return 10*time.Minute + time.Second, nil })},
	{Name: "answers-once", Description: "answers its first challenge, then compares statuses only (fails STALE-007, STALE-008)",
		Impl: operatorImpl(answersOnce)},
	{Name: "rewraps", Description: "answers a challenge by writing its condition type before the challenged message, the seed's text kept (fails STALE-007, STALE-008)",
		Impl: ownOperatorImpl(rewrapping)},
	// Faithful variants (conformance/stale/faithful), written from the
	// seed: they must fail no rule.
	{Name: "type-prefixed", Faithful: true,
		Description: "written from the seed, like library-go's status syncer: each message behind its condition type (\"OperatorAvailable: ...\"), EvaluationConditionsDetected (Unknown, no message) added, resets a challenge at its next resync, every 23s from its start (a period that does not divide 10 minutes: challenges land between syncs), whatever the scenario's answer delay",
		Impl: faithfulOperator(faithful.OperatorOptions{TypePrefix: true, Resync: 23 * time.Second,
			Extra: []configv1.ClusterOperatorStatusCondition{{Type: "EvaluationConditionsDetected", Status: configv1.ConditionUnknown, Reason: "NoData"}}})},
	{Name: "own-reasons", Faithful: true,
		Description: "written from the seed: reasons of its own (AvailableTrue, ...), status.conditions in reverse type order, resets a challenge after the scenario's answer delay rounded up to 5s",
		Impl:        faithfulOperator(faithful.OperatorOptions{OwnReasons: true, Reversed: true, Step: 5 * time.Second})},
}

func core(decide decideFunc) detectorImpl {
	return func(p stale.Params) (stale.Params, decideFunc) { return p, decide }
}

func challengeAfter(d time.Duration) detectorImpl {
	return func(p stale.Params) (stale.Params, decideFunc) {
		p.ChallengeAfter = d
		return p, stale.Step
	}
}

func statusOnly(live configv1.ClusterOperatorStatusCondition, want operator.Condition) bool {
	return live.Status == want.Status
}

// upstreamPrefix is the challenge text of an earlier upstream attempt (see
// docs/upstream.md), which the seed's text replaced.
const upstreamPrefix = "Checking for stale status, the active operator will reset this message: "

type decideFunc = func(stale.Params, *stale.Memory, []configv1.ClusterOperatorStatusCondition, time.Time) stale.Decision

func lenient(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if d.Memory.Phase == stale.MarkedStale && d.Write != nil {
		d.Write = nil
		d.Memory.Seen = m.Seen
	}
	return d
}

func stubborn(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	if m != nil && m.Phase == stale.Challenged {
		return stale.Step(p, m, m.Seen, now) // looks at what it wrote, not at the answer
	}
	return stale.Step(p, m, conds, now)
}

func chatty(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if m == nil || m.Phase != stale.Challenged || d.Memory.Phase != stale.Challenged || d.Write != nil {
		return d
	}
	again := m.ChallengedAt.Add(time.Minute)
	if now.Before(again) {
		d.Next = again
		return d
	}
	// Challenge again, prefix and all, and start the clock over: it never
	// gets to mark the operator Unknown.
	d.Write = append([]configv1.ClusterOperatorStatusCondition(nil), conds...)
	for i := range d.Write {
		d.Write[i].Message = stale.ChallengePrefix + d.Write[i].Message
	}
	d.Memory.Seen, d.Memory.ChallengedAt, d.Next = d.Write, now, now.Add(time.Minute)
	return d
}
