package stale

import (
	"context"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/operator"
	"github.com/opcert/opcert/reference/stale"
)

// More broken subjects for opcert selftest: each breaks one requirement of
// seed 000, several one second either side of a deadline or at a change of
// phase, so that every rule is shown to catch more than one way of getting
// it wrong (opcert selftest).

// shifted moves the run's thresholds by dc and du (1s either side of a
// deadline).
func shifted(dc, du time.Duration) detectorImpl {
	return func(p stale.Params) (stale.Params, decideFunc) {
		p.ChallengeAfter += dc
		p.UnknownAfter += du
		return p, stale.Step
	}
}

// withPrefix challenges with another text in place of the seed's.
func withPrefix(text string) decideFunc {
	return func(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
		d := stale.Step(p, m, conds, now)
		for _, list := range [][]configv1.ClusterOperatorStatusCondition{d.Write, d.Memory.Seen} {
			for i := range list {
				list[i].Message = strings.Replace(list[i].Message, stale.ChallengePrefix, text, 1)
			}
		}
		return d
	}
}

// watchedOf is the watched conditions of conds, copied.
func watchedOf(conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, c := range conds {
		if slices.Contains(stale.Watched, c.Type) {
			out = append(out, *c.DeepCopy())
		}
	}
	return out
}

// challenging tells whether d is the challenge of a detector that was watching.
func challenging(m *stale.Memory, d stale.Decision) bool {
	return (m == nil || m.Phase == stale.Watching) && d.Memory.Phase == stale.Challenged && d.Write != nil
}

// amnesiac dates a ClusterOperator it sees for the first time from that
// look, not from its transition times: a new detector waits 10 more minutes
// for objects long still.
func amnesiac(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if m != nil || d.Memory.Phase == stale.MarkedStale || (d.Memory.Phase == stale.Challenged && d.Write == nil) || len(d.Memory.Seen) == 0 {
		return d // not a first look, or one that resumed a challenge or a mark
	}
	return stale.Decision{Memory: stale.Memory{Phase: stale.Watching, MovedAt: now, Seen: watchedOf(conds)}, Next: now.Add(p.ChallengeAfter)}
}

// transitionsOnly counts only a moved lastTransitionTime as movement: a
// message-only change while watching goes unnoticed.
func transitionsOnly(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	if m == nil || m.Phase != stale.Watching {
		return stale.Step(p, m, conds, now)
	}
	mm := *m
	mm.Seen = watchedOf(conds)
	return stale.Step(p, &mm, conds, now)
}

// retimes moves the lastTransitionTime of every condition it challenges.
func retimes(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if !challenging(m, d) {
		return d
	}
	for _, list := range [][]configv1.ClusterOperatorStatusCondition{d.Write, d.Memory.Seen} {
		for i := range list {
			if slices.Contains(stale.Watched, list[i].Type) {
				list[i].LastTransitionTime.Time = now.Truncate(time.Second)
			}
		}
	}
	return d
}

// oldList watches the conditions of an earlier list, without Failing: a
// ClusterOperator's Failing condition is neither challenged nor marked.
func oldList(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	var kept, failing []configv1.ClusterOperatorStatusCondition
	for _, c := range conds {
		if c.Type == "Failing" {
			failing = append(failing, c)
		} else {
			kept = append(kept, c)
		}
	}
	d := stale.Step(p, m, kept, now)
	if d.Write != nil {
		d.Write = append(d.Write, failing...)
	}
	return d
}

// silentChallenge skips the challenge: it waits the challenge's 10 minutes
// without writing, then marks.
func silentChallenge(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if challenging(m, d) {
		d.Write, d.Memory.Seen = nil, d.Memory.Originals
	}
	return d
}

// rewrites writes its challenge a second time, unchanged, a minute later.
// MovedAt, unused while challenged, remembers that it did.
func rewrites(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	switch {
	case challenging(m, d):
		d.Next = now.Add(time.Minute)
	case m != nil && m.Phase == stale.Challenged && d.Memory.Phase == stale.Challenged && d.Write == nil:
		again := m.ChallengedAt.Add(time.Minute)
		switch {
		case now.Before(again):
			d.Next = again
		case !m.MovedAt.Equal(again):
			d.Write, d.Memory.MovedAt = slices.Clone(conds), again
		}
	}
	return d
}

// remarks writes its Unknown mark again, unchanged, every 10 minutes while
// the operator stays silent.
func remarks(p stale.Params, m *stale.Memory, conds []configv1.ClusterOperatorStatusCondition, now time.Time) stale.Decision {
	d := stale.Step(p, m, conds, now)
	if d.Memory.Phase != stale.MarkedStale || m == nil {
		return d
	}
	if m.Phase == stale.MarkedStale && d.Write == nil {
		if now.Before(m.ChallengedAt) {
			d.Next = m.ChallengedAt
			return d
		}
		d.Write = slices.Clone(conds)
	}
	// ChallengedAt holds when to write the mark again.
	d.Memory.ChallengedAt, d.Next = now.Add(p.UnknownAfter), now.Add(p.UnknownAfter)
	return d
}

// answersOnce answers its first challenge, then compares statuses only:
// later challenges go unanswered while it runs.
func answersOnce(d time.Duration) (time.Duration, compareFunc) {
	challenged, answered := false, false
	return d, func(live configv1.ClusterOperatorStatusCondition, want operator.Condition) bool {
		switch {
		case strings.HasPrefix(live.Message, stale.ChallengePrefix) && answered:
			return live.Status == want.Status
		case strings.HasPrefix(live.Message, stale.ChallengePrefix):
			challenged = true
			return false
		case operator.Same(live, want):
			answered = answered || challenged
			return true
		}
		return false
	}
}

// rewrapping is an operator that answers a challenge by writing its
// condition type before each challenged message, the seed's text kept
// behind it ("OperatorAvailable: Operator checking for stale status, ..."):
// the message moved, but the operator did not reset it, removing the
// checking part (000 §Proposal ¶3). Otherwise it is the reference.
func rewrapping(c client.Client, clk clock.PassiveClock, name string, delay time.Duration, want []operator.Condition) operatorProcess {
	return &rewrapper{Operator: operator.New(c, clk, name, delay, want)}
}

type rewrapper struct {
	*operator.Operator
	seen time.Time // when a challenge was first seen, zero if none waits
}

func (r *rewrapper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	if err := r.Client.Get(ctx, req.NamespacedName, co); err != nil || !challenged(co.Status.Conditions) {
		r.seen = time.Time{}
		return r.Operator.Reconcile(ctx, req)
	}
	if !slices.ContainsFunc(co.Status.Conditions, func(c configv1.ClusterOperatorStatusCondition) bool {
		return strings.HasPrefix(c.Message, stale.ChallengePrefix)
	}) {
		return reconcile.Result{}, nil // wrapped already: nothing left to do
	}
	now := r.Clock.Now()
	if r.seen.IsZero() {
		r.seen = now
	}
	if due := r.seen.Add(r.AnswerDelay); now.Before(due) {
		return reconcile.Result{RequeueAfter: due.Sub(now)}, nil
	}
	for i := range co.Status.Conditions {
		if c := &co.Status.Conditions[i]; strings.HasPrefix(c.Message, stale.ChallengePrefix) {
			c.Message = "Operator" + string(c.Type) + ": " + c.Message
		}
	}
	r.seen = time.Time{}
	return reconcile.Result{}, r.Client.Status().Update(ctx, co)
}

// challenged tells whether a message carries the seed's challenge text.
func challenged(conds []configv1.ClusterOperatorStatusCondition) bool {
	return slices.ContainsFunc(conds, func(c configv1.ClusterOperatorStatusCondition) bool {
		return strings.Contains(c.Message, stale.ChallengePrefix)
	})
}
