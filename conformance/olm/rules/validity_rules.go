package rules

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// validConditions is OLM-007: every condition the aggregator writes on a
// Probe has the fields of 002 §Design Details' table (KEP-1623) right;
// observedGeneration may be left out ("If set").
func (c Config) validConditions(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r007] }

// judgeConditions judges the aggregator's write e of a Probe, which left
// the world as now (OLM-007).
func (g *olmJudging) judgeConditions(e timeline.Event, now *world) {
	for _, ch := range e.Conditions {
		if ch.After == nil {
			continue
		}
		g.valid.Judged++
		if why := conditionProblem(ch, e.Time, g.c.allowance()); why != "" {
			g.valid.FailIn(fmt.Sprintf("%s at %s: condition %s %s", e.Object, g.off(e.Time), ch.Type, why), e.Time, e.Time, e)
		}
	}
	// observedGeneration, when the timeline records status.conditions:
	// "If set", the generation the condition was set based upon (002
	// §Design Details), so never one the Probe has not reached.
	p := now.probes[e.Object]
	if _, ok := e.Field(fieldConditions); !ok {
		return
	}
	for _, t := range slices.Sorted(maps.Keys(p.gens)) {
		if p.gens[t] > p.generation || p.gens[t] < 0 {
			g.valid.FailIn(fmt.Sprintf("%s at %s: condition %s has observedGeneration %d, a generation the Probe has not had (it is at %d)",
				e.Object, g.off(e.Time), t, p.gens[t], p.generation), e.Time, e.Time, e)
		}
	}
}

// conditionProblem says what is wrong with a condition as a write left
// it: "" when nothing is.
func conditionProblem(ch timeline.ConditionChange, at time.Time, tolerance time.Duration) string {
	a := *ch.After
	switch {
	case !conditionType(a.Type):
		return "has a type that is neither CamelCase nor prefix/CamelCase"
	case a.Status != statusTrue && a.Status != statusFalse && a.Status != statusUnknown:
		return fmt.Sprintf("has status %q, not True, False or Unknown", a.Status)
	case a.Reason == "":
		return "has no reason"
	case len(a.Reason) > maxReason || !reasonPattern.MatchString(a.Reason):
		return fmt.Sprintf("has reason %q, not CamelCase", a.Reason)
	case a.LastTransitionTime.IsZero():
		return "has no lastTransitionTime"
	case ch.Before == nil:
		return ""
	case ch.Before.Status != a.Status && a.LastTransitionTime.Before(at.Truncate(time.Second).Add(-tolerance)):
		// A transition stamps the write's time (to the second, as the API
		// server keeps it): two transitions at one instant share it.
		return fmt.Sprintf("went from %s to %s without moving lastTransitionTime", ch.Before.Status, a.Status)
	case ch.Before.Status == a.Status && !a.LastTransitionTime.Equal(ch.Before.LastTransitionTime):
		return fmt.Sprintf("moved lastTransitionTime from %s to %s while its status stayed %s",
			ch.Before.LastTransitionTime.Format("15:04:05"), a.LastTransitionTime.Format("15:04:05"), a.Status)
	}
	return ""
}
