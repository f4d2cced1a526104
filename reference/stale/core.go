package stale

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChallengePrefix is the first text of 000 §Proposal, verbatim.
const ChallengePrefix = "Operator checking for stale status, the active operator will reset this message: "

// StaleMessage is the second text of 000 §Proposal, verbatim but for the
// duration, which is the sum of the thresholds (20 minutes by default).
func StaleMessage(after time.Duration, lastStatus configv1.ConditionStatus, original string) string {
	return fmt.Sprintf("Operator has not updated this condition for more than %s, last known condition state was %q, original message: %s",
		humanDuration(after), string(lastStatus), original)
}

func humanDuration(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return d.String()
}

// Watched are the condition types the detector looks at (000 §Proposal ¶2);
// Failing is Degraded's older name (decision 001,
// conformance/clusteroperator/README.md).
var Watched = []configv1.ClusterStatusConditionType{
	configv1.OperatorDegraded, "Failing", configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorUpgradeable,
}

// Params are the thresholds; the seed's are the defaults.
type Params struct {
	ChallengeAfter time.Duration // no movement for this long -> challenge
	UnknownAfter   time.Duration // no answer for this long -> Unknown
	// Silence is the silence the mark's text states ("more than 20
	// minutes"); zero: ChallengeAfter+UnknownAfter. A real-time run at a
	// time scale plays the world's 20 minutes in 12s, and its detector
	// states the world's duration, as its scenario does.
	Silence time.Duration
}

// silence is the duration the mark's text states.
func (p Params) silence() time.Duration {
	if p.Silence > 0 {
		return p.Silence
	}
	return p.ChallengeAfter + p.UnknownAfter
}

// DefaultParams are 000 §Proposal's 10 minutes and 10 more minutes.
func DefaultParams() Params {
	return Params{ChallengeAfter: 10 * time.Minute, UnknownAfter: 10 * time.Minute}
}

// Phase is where one ClusterOperator is in the challenge cycle.
type Phase int

// Phases.
const (
	Watching    Phase = iota // waiting for ChallengeAfter without movement
	Challenged               // challenge written, waiting for the answer
	MarkedStale              // Unknown written, waiting for the operator to come back
)

// Memory is what the detector remembers of one ClusterOperator.
type Memory struct {
	// Phase is where the ClusterOperator is in the challenge cycle.
	Phase   Phase
	MovedAt time.Time // last instant the operator showed it was alive
	// ChallengedAt is when the detector last wrote its challenge; Unknown is due UnknownAfter later.
	ChallengedAt time.Time
	// Seen are the watched conditions as last seen or written by the detector.
	Seen []configv1.ClusterOperatorStatusCondition
	// Originals are the watched conditions as they were when challenged.
	Originals []configv1.ClusterOperatorStatusCondition
}

// Decision is what Step wants done.
type Decision struct {
	// Write is the full new condition list, nil when nothing is to be written.
	Write []configv1.ClusterOperatorStatusCondition
	// Memory is what the detector remembers of the ClusterOperator after this step.
	Memory Memory
	// Next is when to look again; zero means only a change is worth a look.
	Next time.Time
}

// Step decides for one ClusterOperator. mem is nil on the first look.
func Step(p Params, mem *Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) Decision {
	watched := pick(conds)
	if len(watched) == 0 {
		return Decision{Memory: Memory{MovedAt: now}}
	}
	var m Memory
	switch {
	case mem == nil:
		m = resume(watched, now)
	case !same(mem.Seen, watched):
		m = Memory{Phase: Watching, MovedAt: now, Seen: watched}
	default:
		m = *mem
	}
	if t := lastTransition(watched); t.After(m.MovedAt) {
		m.MovedAt = t
	}
	switch m.Phase {
	case Watching:
		due := m.MovedAt.Add(p.ChallengeAfter)
		if now.Before(due) {
			return Decision{Memory: m, Next: due}
		}
		m.Phase, m.ChallengedAt, m.Originals = Challenged, now, watched
		write := rewrite(conds, func(c *configv1.ClusterOperatorStatusCondition) {
			c.Message = ChallengePrefix + c.Message
		})
		m.Seen = pick(write)
		return Decision{Write: write, Memory: m, Next: now.Add(p.UnknownAfter)}
	case Challenged:
		due := m.ChallengedAt.Add(p.UnknownAfter)
		if now.Before(due) {
			return Decision{Memory: m, Next: due}
		}
		originals := byType(m.Originals)
		write := rewrite(conds, func(c *configv1.ClusterOperatorStatusCondition) {
			o, ok := originals[c.Type]
			if !ok {
				o = *c
			}
			c.Message = StaleMessage(p.silence(), o.Status, o.Message)
			if c.Status != configv1.ConditionUnknown {
				// The API server keeps transition times to the second; so does the
				// detector, or it would mistake its own write for movement.
				c.Status, c.LastTransitionTime = configv1.ConditionUnknown, metav1.NewTime(now).Rfc3339Copy()
			}
		})
		m.Phase, m.Seen = MarkedStale, pick(write)
		return Decision{Write: write, Memory: m}
	default:
		return Decision{Memory: m}
	}
}

// resume builds the memory of a first look. An object already challenged
// or marked by an earlier detector resumes that phase.
func resume(watched []configv1.ClusterOperatorStatusCondition, now time.Time) Memory {
	m := Memory{Phase: Watching, Seen: watched}
	challenged, stale := true, true
	for _, c := range watched {
		challenged = challenged && strings.HasPrefix(c.Message, ChallengePrefix)
		stale = stale && c.Status == configv1.ConditionUnknown && strings.HasPrefix(c.Message, "Operator has not updated this condition")
	}
	switch {
	case challenged:
		m.Phase, m.ChallengedAt, m.MovedAt = Challenged, now, now
		for _, c := range watched {
			c.Message = strings.TrimPrefix(c.Message, ChallengePrefix)
			m.Originals = append(m.Originals, c)
		}
	case stale:
		m.Phase = MarkedStale
	}
	return m
}

// pick returns copies of the watched conditions, in object order.
func pick(conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, c := range conds {
		if isWatched(c.Type) {
			out = append(out, *c.DeepCopy())
		}
	}
	return out
}

func isWatched(t configv1.ClusterStatusConditionType) bool {
	for _, w := range Watched {
		if t == w {
			return true
		}
	}
	return false
}

// rewrite copies conds, applying f to the watched ones.
func rewrite(conds []configv1.ClusterOperatorStatusCondition, f func(*configv1.ClusterOperatorStatusCondition)) []configv1.ClusterOperatorStatusCondition {
	out := make([]configv1.ClusterOperatorStatusCondition, len(conds))
	for i, c := range conds {
		out[i] = *c.DeepCopy()
		if isWatched(c.Type) {
			f(&out[i])
		}
	}
	return out
}

// same tells whether two condition lists say the same, type by type: the
// order of status.conditions means nothing, so a reordering is no movement
// (the STALE rules read the timeline's changes type by type too).
func same(a, b []configv1.ClusterOperatorStatusCondition) bool {
	if len(a) != len(b) {
		return false
	}
	bs := byType(b)
	for _, x := range a {
		y, ok := bs[x.Type]
		if !ok || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

func lastTransition(conds []configv1.ClusterOperatorStatusCondition) time.Time {
	var t time.Time
	for _, c := range conds {
		if c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	return t
}

func byType(conds []configv1.ClusterOperatorStatusCondition) map[configv1.ClusterStatusConditionType]configv1.ClusterOperatorStatusCondition {
	m := make(map[configv1.ClusterStatusConditionType]configv1.ClusterOperatorStatusCondition, len(conds))
	for _, c := range conds {
		m[c.Type] = c
	}
	return m
}
