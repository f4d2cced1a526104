package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the operator's status writes as such: STACKABLE-007 (each
// condition valid), 008 (none from a failed reconcile).

// validConditions is STACKABLE-007.
func (c Config) validConditions(j *conformance.Judging) conformance.Verdict {
	var g conformance.Judgement
	probed := false
	for _, s := range storiesOf(j).clusters {
		for i, e := range s.events {
			if !e.IsWrite() || e.Verb == timeline.VerbDelete || e.Object != s.ref || e.Role != RoleOperator {
				continue
			}
			for _, ch := range e.Conditions {
				if ch.After == nil {
					continue
				}
				g.Judged++
				if why := c.conditionProblem(ch, e.Time); why != "" {
					g.FailIn(fmt.Sprintf("%s at %s: condition %s %s", e.Object, j.Offset(e.Time), ch.Type, why), e.Time, e.Time, e)
				}
			}
			// lastProbeTime, when the write records status.conditions;
			// operator-rs's ClusterCondition has none (status/condition/mod.rs).
			if _, ok := field(e, fieldConditions); !ok || c.operatorRS() {
				continue
			}
			probed = true
			for _, x := range s.after[i].cluster.list {
				g.Judged++
				if why := c.probeProblem(x, e.Time); why != "" {
					g.FailIn(fmt.Sprintf("%s at %s: condition %s %s", e.Object, j.Offset(e.Time), x.Type, why), e.Time, e.Time, e)
				}
			}
		}
	}
	if !probed && !c.operatorRS() && g.Judged > 0 {
		g.Skip("lastProbeTime: no write recorded status.conditions")
	}
	return g.Verdict("no condition written on a SampleCluster by the operator")
}

// conditionProblem says what is wrong with a condition as a write at t
// left it: "" when nothing is. operator-rs sets no reason, and no
// lastTransitionTime on a condition it adds (status/condition/mod.rs:
// update_timestamps runs only when an old condition of the type exists),
// so the profile asks for neither, only for them right when present.
func (c Config) conditionProblem(ch timeline.ConditionChange, t time.Time) string {
	a := *ch.After
	switch {
	case a.Status != statusTrue && a.Status != statusFalse && a.Status != statusUnknown:
		return fmt.Sprintf("has status %q, not True, False or Unknown", a.Status)
	case a.Reason == "" && !c.operatorRS():
		return "has no reason"
	case a.Reason != "" && (len(a.Reason) > maxReason || !reasonPattern.MatchString(a.Reason)):
		return fmt.Sprintf("has reason %q, not CamelCase", a.Reason)
	case a.LastTransitionTime.IsZero() && !c.operatorRS():
		return "has no lastTransitionTime"
	case a.LastTransitionTime.After(t.Add(c.Tolerance)):
		return fmt.Sprintf("has lastTransitionTime %s, after the write", a.LastTransitionTime.Format(time.RFC3339))
	case ch.Before == nil:
		return ""
	case ch.Before.Status != a.Status && a.LastTransitionTime.Before(t.Truncate(time.Second).Add(-c.Tolerance)):
		// A transition stamps the write's time (to the second, as the API
		// server keeps it): two transitions at one instant share it.
		return fmt.Sprintf("went from %s to %s without moving lastTransitionTime to the write's time (it says %s)", ch.Before.Status, a.Status, a.LastTransitionTime.Format(time.RFC3339))
	case ch.Before.Status == a.Status && !a.LastTransitionTime.Equal(ch.Before.LastTransitionTime):
		return fmt.Sprintf("moved lastTransitionTime from %s to %s while its status stayed %s",
			ch.Before.LastTransitionTime.Format(time.RFC3339), a.LastTransitionTime.Format(time.RFC3339), a.Status)
	}
	return ""
}

// probeProblem says what is wrong with a listed condition's lastProbeTime
// in a write at t (the shared design: the time of the status write, as
// in the ADR's examples, so never before the condition's transition nor
// after the write): "" when nothing is.
func (c Config) probeProblem(x condition, t time.Time) string {
	switch {
	case x.LastProbeTime == nil:
		return "has no lastProbeTime"
	case x.LastTransitionTime != nil && x.LastProbeTime.Before(*x.LastTransitionTime):
		return fmt.Sprintf("has lastProbeTime %s, before its lastTransitionTime %s", x.LastProbeTime.Format(time.RFC3339), x.LastTransitionTime.Format(time.RFC3339))
	case x.LastProbeTime.After(t.Add(c.Tolerance)):
		return fmt.Sprintf("has lastProbeTime %s, after the write", x.LastProbeTime.Format(time.RFC3339))
	}
	return ""
}

// noStatusWhileBroken is STACKABLE-008.
func (c Config) noStatusWhileBroken(j *conformance.Judging) conformance.Verdict {
	var g conformance.Judgement
	c.during(j, func(sc scene) bool { return sc.cluster != nil && sc.cluster.spec.Broken != "" },
		func(s *story, e timeline.Event) string {
			if e.Object != s.ref || e.Role != RoleOperator || !publishes(e) {
				return ""
			}
			return fmt.Sprintf("the operator's status write (%s) while its reconcile fails", changedTypes(e))
		}, &g)
	return g.Verdict("no SampleCluster whose reconcile fails")
}

// publishes tells whether e writes a cluster's status: a status update,
// or a write that changes a condition or the recorded list.
func publishes(e timeline.Event) bool {
	_, list := field(e, fieldConditions)
	return e.Verb == timeline.VerbUpdateStatus || len(e.Conditions) > 0 || list
}

// changedTypes names the conditions e changes: "Available, Degraded", or
// "no condition changed".
func changedTypes(e timeline.Event) string {
	out := ""
	for _, ch := range e.Conditions {
		if out != "" {
			out += ", "
		}
		out += ch.Type
	}
	if out == "" {
		return "no condition changed"
	}
	return out
}
