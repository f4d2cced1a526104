package stale

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func cond(typ string, status configv1.ConditionStatus, msg string, ltt time.Duration) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{
		Type: configv1.ClusterStatusConditionType(typ), Status: status, Reason: "AsExpected",
		Message: msg, LastTransitionTime: metav1.NewTime(at(ltt)),
	}
}

func healthy(ltt time.Duration) []configv1.ClusterOperatorStatusCondition {
	return []configv1.ClusterOperatorStatusCondition{
		cond("Available", configv1.ConditionTrue, "All is well", ltt),
		cond("Degraded", configv1.ConditionFalse, "No problems", ltt),
		cond("Progressing", configv1.ConditionFalse, "Done", ltt),
		cond("Upgradeable", configv1.ConditionTrue, "Safe", ltt),
	}
}

// look is one observation in a walk: the conditions seen at a time, and
// what the detector must do.
type look struct {
	at        time.Duration
	conds     []configv1.ClusterOperatorStatusCondition // nil: the detector's own last write
	wantWrite bool
	wantNext  time.Duration // -1: no timer
	check     func(t *testing.T, w []configv1.ClusterOperatorStatusCondition)
}

func walk(t *testing.T, p Params, looks []look) {
	t.Helper()
	var mem *Memory
	var last []configv1.ClusterOperatorStatusCondition
	for i, l := range looks {
		conds := l.conds
		if conds == nil {
			conds = last
		}
		d := Step(p, mem, conds, at(l.at))
		if (d.Write != nil) != l.wantWrite {
			t.Fatalf("look %d at %v: write=%v, want %v", i, l.at, d.Write != nil, l.wantWrite)
		}
		switch {
		case l.wantNext < 0 && !d.Next.IsZero():
			t.Fatalf("look %d at %v: next=%v, want none", i, l.at, d.Next.Sub(t0))
		case l.wantNext >= 0 && !d.Next.Equal(at(l.wantNext)):
			t.Fatalf("look %d at %v: next=%v, want %v", i, l.at, d.Next.Sub(t0), l.wantNext)
		}
		if l.check != nil {
			l.check(t, d.Write)
		}
		last = conds
		if d.Write != nil {
			last = d.Write
		}
		m := d.Memory
		mem = &m
	}
}

func challengedAll(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
	t.Helper()
	want := map[string]string{"Available": "All is well", "Degraded": "No problems", "Progressing": "Done", "Upgradeable": "Safe"}
	for _, c := range w {
		if c.Message != ChallengePrefix+want[string(c.Type)] {
			t.Errorf("%s message %q, want the challenge prefix on %q", c.Type, c.Message, want[string(c.Type)])
		}
		if c.Status == configv1.ConditionUnknown {
			t.Errorf("%s: a challenge must not change the status", c.Type)
		}
	}
}

// TestSeed000 walks 000 §Proposal sentence by sentence.
func TestSeed000(t *testing.T) {
	p := DefaultParams()
	m := time.Minute
	answered := healthy(0)

	t.Run("§Proposal¶2 nothing moves for 10 minutes: one write prefixes every watched message", func(t *testing.T) {
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 9*m + 59*time.Second, conds: healthy(0), wantNext: 10 * m},
			{at: 10 * m, conds: healthy(0), wantWrite: true, wantNext: 20 * m, check: challengedAll},
		})
	})
	t.Run("§Proposal¶3 the operator answers: no Unknown, next challenge 10 minutes after the answer", func(t *testing.T) {
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 10 * m, conds: healthy(0), wantWrite: true, wantNext: 20 * m},
			{at: 10*m + 2*time.Second, conds: answered, wantNext: 20*m + 2*time.Second},
			{at: 20 * m, conds: answered, wantNext: 20*m + 2*time.Second},
			{at: 20*m + 2*time.Second, conds: answered, wantWrite: true, wantNext: 30*m + 2*time.Second, check: challengedAll},
		})
	})
	t.Run("§Proposal¶4 no answer for 10 more minutes: Unknown with the second text", func(t *testing.T) {
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 10 * m, conds: healthy(0), wantWrite: true, wantNext: 20 * m},
			{at: 19 * m, wantNext: 20 * m},
			{at: 20 * m, wantWrite: true, wantNext: -1, check: func(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
				want := map[string]string{
					"Available":   `Operator has not updated this condition for more than 20 minutes, last known condition state was "True", original message: All is well`,
					"Degraded":    `Operator has not updated this condition for more than 20 minutes, last known condition state was "False", original message: No problems`,
					"Progressing": `Operator has not updated this condition for more than 20 minutes, last known condition state was "False", original message: Done`,
					"Upgradeable": `Operator has not updated this condition for more than 20 minutes, last known condition state was "True", original message: Safe`,
				}
				for _, c := range w {
					if c.Status != configv1.ConditionUnknown || c.Message != want[string(c.Type)] {
						t.Errorf("%s = %s %q, want Unknown %q", c.Type, c.Status, c.Message, want[string(c.Type)])
					}
					if !c.LastTransitionTime.Time.Equal(at(20*m)) || c.Reason != "AsExpected" {
						t.Errorf("%s: transition %v reason %q, want 20m and the reason kept", c.Type, c.LastTransitionTime, c.Reason)
					}
				}
			}},
		})
	})
	t.Run("§Risks at most two writes per cycle: nothing more once marked", func(t *testing.T) {
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 10 * m, conds: healthy(0), wantWrite: true, wantNext: 20 * m},
			{at: 20 * m, wantWrite: true, wantNext: -1},
			{at: 5 * time.Hour, wantNext: -1},
		})
	})
	t.Run("§Proposal¶5 any watched condition moving counts as alive", func(t *testing.T) {
		moved := healthy(0)
		moved[2] = cond("Progressing", configv1.ConditionTrue, "Rolling out", 8*m)
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 8 * m, conds: moved, wantNext: 18 * m},
			{at: 10 * m, conds: moved, wantNext: 18 * m},
		})
	})
	t.Run("§Proposal¶5 a change while challenged clears the challenge", func(t *testing.T) {
		partial := healthy(0)
		partial[0].Message = "Now serving 3 replicas"
		walk(t, p, []look{
			{at: 0, conds: healthy(0), wantNext: 10 * m},
			{at: 10 * m, conds: healthy(0), wantWrite: true, wantNext: 20 * m},
			{at: 15 * m, conds: partial, wantNext: 25 * m},
			{at: 20 * m, conds: partial, wantNext: 25 * m},
		})
	})
	t.Run("§Proposal¶2 conditions other than the four are not watched", func(t *testing.T) {
		only := []configv1.ClusterOperatorStatusCondition{cond("EvaluationConditionsDetected", configv1.ConditionFalse, "x", 0)}
		walk(t, p, []look{{at: time.Hour, conds: only, wantNext: -1}})
	})
	t.Run("decision 001 Failing is watched like Degraded", func(t *testing.T) {
		conds := []configv1.ClusterOperatorStatusCondition{cond("Failing", configv1.ConditionFalse, "fine", 0)}
		walk(t, p, []look{{at: 10 * m, conds: conds, wantWrite: true, wantNext: 20 * m, check: func(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
			if w[0].Message != ChallengePrefix+"fine" {
				t.Errorf("Failing not challenged: %q", w[0].Message)
			}
		}}})
	})
	t.Run("a first look at an object challenged by an earlier detector resumes with a full window", func(t *testing.T) {
		pre := healthy(0)
		for i := range pre {
			pre[i].Message = ChallengePrefix + pre[i].Message
		}
		walk(t, p, []look{
			{at: time.Hour, conds: pre, wantNext: time.Hour + 10*m},
			{at: time.Hour + 10*m, wantWrite: true, wantNext: -1, check: func(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
				if strings.Contains(w[0].Message, ChallengePrefix) || !strings.HasSuffix(w[0].Message, "original message: All is well") {
					t.Errorf("the stale text must quote the original message, not the challenge: %q", w[0].Message)
				}
			}},
		})
	})
	t.Run("thresholds are parameters and the text follows them", func(t *testing.T) {
		walk(t, Params{ChallengeAfter: m, UnknownAfter: 2 * m}, []look{
			{at: m, conds: healthy(0), wantWrite: true, wantNext: 3 * m},
			{at: 3 * m, wantWrite: true, wantNext: -1, check: func(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
				if !strings.Contains(w[0].Message, "more than 3 minutes") {
					t.Errorf("text does not follow the thresholds: %q", w[0].Message)
				}
			}},
		})
	})
}

// The order of status.conditions means nothing: an operator that writes
// the same conditions in another order has not moved, for the detector as
// for the STALE rules (which read changes type by type), so the challenge
// still comes 10m after the last real movement. Movement is dated by the
// look that sees it (the write, in the simulator), not by the conditions'
// lastTransitionTime, which a message change leaves alone.
func TestReorderIsNoMovement(t *testing.T) {
	h := healthy(0)
	reordered := []configv1.ClusterOperatorStatusCondition{h[3], h[2], h[1], h[0]}
	moved := healthy(0)
	moved[0].Message = "All is still well" // a message change keeps its transition time
	walk(t, DefaultParams(), []look{
		{at: 0, conds: h, wantNext: 10 * time.Minute},
		{at: 4 * time.Minute, conds: reordered, wantNext: 10 * time.Minute},
		{at: 10 * time.Minute, conds: reordered, wantWrite: true, wantNext: 20 * time.Minute},
	})
	walk(t, DefaultParams(), []look{
		{at: 0, conds: h, wantNext: 10 * time.Minute},
		{at: 4 * time.Minute, conds: moved, wantNext: 14 * time.Minute},
	})
}

// At a time scale the waits are seconds and the mark states the world's
// silence (Params.Silence); without it, the two waits.
func TestMarkStatesTheSilence(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{ChallengeAfter: 6 * time.Second, UnknownAfter: 6 * time.Second, Silence: 20 * time.Minute}, "more than 20 minutes"},
		{Params{ChallengeAfter: 6 * time.Second, UnknownAfter: 6 * time.Second}, "more than 12s"},
	} {
		mark := func(t *testing.T, w []configv1.ClusterOperatorStatusCondition) {
			for _, c := range w {
				if !strings.Contains(c.Message, tc.want) {
					t.Errorf("%s: %q, want %q in it", c.Type, c.Message, tc.want)
				}
			}
		}
		walk(t, tc.p, []look{
			{at: 0, conds: healthy(0), wantNext: 6 * time.Second},
			{at: 6 * time.Second, wantWrite: true, wantNext: 12 * time.Second},
			{at: 12 * time.Second, wantWrite: true, wantNext: -1, check: mark},
		})
	}
}
