package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the operator's conditions as such: STACKABLE-007 (each
// condition valid: what a reader of the transition history relies on),
// 009 (messages name the pods, a Style rule) and 010 (the conventions of
// the ADR's examples and of Kubernetes, a Style rule).

// conditions judges STACKABLE-007 and 010 at the story's event i of
// cluster cj: every condition the operator writes on the cluster, and
// every entry of status.conditions as its write records it.
func (g *judging) conditions(cj *clusterJudge, i int) {
	s, e := cj.s, cj.s.ev(i)
	if !e.IsWrite() || e.Verb == timeline.VerbDelete || e.Object != s.ref || e.Role != RoleOperator {
		return
	}
	fail := func(f *findings, typ, why string) {
		f.written = append(f.written, judge.Problem{Message: fmt.Sprintf("%s at %s: condition %s %s", e.Object, g.off(e.Time), typ, why),
			From: e.Time, To: e.Time, Evidence: []timeline.Event{e}})
	}
	valid, conventions := &cj.f[r007], &cj.f[r010]
	for _, ch := range e.Conditions {
		if ch.After == nil {
			continue
		}
		valid.judged++
		if why := g.c.conditionProblem(ch, e.Time); why != "" {
			fail(valid, ch.Type, why)
		}
		conventions.judged++
		if r := ch.After.Reason; r != "" && (len(r) > maxReason || !reasonPattern.MatchString(r)) {
			fail(conventions, ch.Type, fmt.Sprintf("has reason %q, not CamelCase", r))
		}
	}
	if _, ok := e.Field(fieldConditions); !ok {
		return
	}
	for _, x := range s.at(i).cluster.list {
		valid.judged++
		if why := g.c.probeProblem(x, e.Time); why != "" {
			fail(valid, x.Type, why)
		}
		g.probed = true
		conventions.judged++
		if x.LastProbeTime == nil {
			fail(conventions, x.Type, "has no lastProbeTime")
		}
	}
}

// conditionProblem says what is wrong with a condition as a write at t
// left it: "" when nothing is. The transition history (004 §Decision
// Drivers, "transition history") asks for a lastTransitionTime that moves
// when, and only when, the status does; a transition may carry the time
// the operator saw it, within the slack before the write. operator-rs
// sets no lastTransitionTime on a condition it adds
// (status/condition/mod.rs: update_timestamps runs only when an old
// condition of the type exists), so its profile asks for it only when
// present.
func (c Config) conditionProblem(ch timeline.ConditionChange, t time.Time) string {
	a := *ch.After
	switch {
	case a.Status != statusTrue && a.Status != statusFalse && a.Status != statusUnknown:
		return fmt.Sprintf("has status %q, not True, False or Unknown", a.Status)
	case a.LastTransitionTime.IsZero() && !c.operatorRS():
		return "has no lastTransitionTime"
	case a.LastTransitionTime.After(t.Add(c.Tolerance)):
		return fmt.Sprintf("has lastTransitionTime %s, after the write", a.LastTransitionTime.Format(time.RFC3339))
	case ch.Before == nil:
		return ""
	case ch.Before.Status != a.Status && a.LastTransitionTime.Before(t.Truncate(time.Second).Add(-c.slack())):
		// A transition stamps the write's time (to the second, as the API
		// server keeps it), or when the operator saw it, within the slack.
		return fmt.Sprintf("went from %s to %s without moving lastTransitionTime to the write's time (it says %s)", ch.Before.Status, a.Status, a.LastTransitionTime.Format(time.RFC3339))
	case ch.Before.Status == a.Status && !a.LastTransitionTime.Equal(ch.Before.LastTransitionTime):
		return fmt.Sprintf("moved lastTransitionTime from %s to %s while its status stayed %s",
			ch.Before.LastTransitionTime.Format(time.RFC3339), a.LastTransitionTime.Format(time.RFC3339), a.Status)
	}
	return ""
}

// probeProblem says what is wrong with a listed condition's lastProbeTime
// in a write at t: "" when nothing is, or when it has none (the ADR's
// examples carry one; STACKABLE-010 warns when it is absent). Set, it is
// when the operator last looked, so neither before the transition it saw
// nor after the write.
func (c Config) probeProblem(x condition, t time.Time) string {
	switch {
	case x.LastProbeTime == nil:
	case x.LastTransitionTime != nil && x.LastProbeTime.Before(*x.LastTransitionTime):
		return fmt.Sprintf("has lastProbeTime %s, before its lastTransitionTime %s", x.LastProbeTime.Format(time.RFC3339), x.LastTransitionTime.Format(time.RFC3339))
	case x.LastProbeTime.After(t.Add(c.Tolerance)):
		return fmt.Sprintf("has lastProbeTime %s, after the write", x.LastProbeTime.Format(time.RFC3339))
	}
	return ""
}

// messagesNamePods is STACKABLE-009's watch of the cluster of story s.
func (c Config) messagesNamePods(s *story) watch {
	return watch{
		input:  func(e timeline.Event) bool { return reads(s.ref, e) },
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == s.ref && e.Role == RoleOperator },
		check: func(world, out scene) (string, bool) {
			if world.cluster == nil || world.cluster.spec.Broken != "" || out.cluster == nil || len(out.cluster.conds) == 0 {
				return "", false
			}
			if p := unnamed(s, world, out); p != "" {
				return s.ref.String() + ": " + p, true
			}
			return "", true
		},
	}
}

// unnamed says which of the table's conditions out holds has no message,
// or does not name an offending pod of the world where its row's Example
// Message names them ("[Pod1,Pod2]": Available Unknown, Progressing False
// on a Failed pod, Degraded True); "" when none.
func unnamed(s *story, world, out scene) string {
	for _, typ := range []string{condAvailable, condProgressing, condDegraded, condPaused, condReconciliationPaused, condStopped} {
		if got, ok := out.cluster.conds[typ]; ok && strings.TrimSpace(got.Message) == "" {
			return fmt.Sprintf("%s %s has no message", typ, got.Status)
		}
	}
	f, _, ok := seedFacts(s, world)
	if !ok || f.stopped {
		return ""
	}
	var failed []string // Progressing False names them only when replicas are missing
	if !f.readings[0].equal {
		failed = f.failed
	}
	for _, x := range []struct {
		typ, status string
		pods        []string
	}{
		{condAvailable, statusUnknown, f.unknown},
		{condProgressing, statusFalse, failed},
		{condDegraded, statusTrue, append(append([]string{}, f.unknown...), f.failed...)},
	} {
		got, ok := out.cluster.conds[x.typ]
		if !ok || got.Status != x.status {
			continue
		}
		for _, p := range x.pods {
			if !strings.Contains(got.Message, p) {
				return fmt.Sprintf("%s %s %q does not name pod %s", x.typ, x.status, got.Message, p)
			}
		}
	}
	return ""
}
