package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// CO-020: every condition the operator writes is valid. The status is one
// of the three (docs/upstream.md, "Kubernetes conditions in general"), and
// lastTransitionTime records the last change of status:
// it moves when the status changes and only then (001 §Conditions through
// the godoc it refers to; docs/upstream.md: meta.SetStatusCondition). The one
// exception is 001 §Version reporting during an upgrade: an operator that
// does not report Progressing=True at an upgrade's end "MUST set
// lastTransitionTime on Progressing to the current time", so Progressing's
// may move with its status unchanged when it is set to the write's own
// time in a write that completes an upgrade: one that changes the
// operator's version (status.versions[name=operator]) or Progressing's
// message ("Working towards 4.0.1" to "Cluster version is 4.0.1", for a
// timeline that does not record versions). A condition judged is every
// one a write adds or changes; one it leaves alone was judged when set.
func (c Config) validConditions(j *judge.Judging) judge.Verdict {
	return c.verdict(r020)(j)
}

// conditions judges an operator's write of a ClusterOperator by the
// rules on conditions (CO-020 on).
func (g *coJudging) conditions(w *coWrite) {
	g.validWrite(w.ev)
	g.camelCase(w.ev)
	g.detailedWrite(w.ev)
	g.explainedWrite(w.ev)
	g.messages(w.ev)
}

// validWrite is CO-020 on one write.
func (g *coJudging) validWrite(e timeline.Event) {
	c, f := g.c, &g.valid
	for _, ch := range e.Conditions {
		a, b := ch.After, ch.Before
		if a == nil {
			continue
		}
		f.Judged++
		what := fmt.Sprintf("%s %s at %s", e.Object, ch.Type, g.off(e.Time))
		if !slices.Contains([]string{statusTrue, statusFalse, statusUnknown}, a.Status) {
			f.Fail(fmt.Sprintf("%s: status %q is none of True, False and Unknown", what, a.Status), e)
		}
		if b == nil {
			continue // added: no transition to judge
		}
		moved := !a.LastTransitionTime.Equal(b.LastTransitionTime)
		switch {
		case a.Status == b.Status && moved && !c.upgradeStamp(e, ch):
			f.Fail(fmt.Sprintf("%s: lastTransitionTime moved from %s to %s while the status stayed %s", what, g.instant(b.LastTransitionTime), g.instant(a.LastTransitionTime), a.Status), e)
		case a.Status != b.Status && !moved && !c.atWrite(a.LastTransitionTime, e.Time):
			// The API server keeps the time to the second: two
			// transitions within one second (False, True and back in
			// one instant) share it, so a time that is this write's
			// own counts as moved.
			f.Fail(fmt.Sprintf("%s: the status went %s -> %s but lastTransitionTime stayed at %s", what, b.Status, a.Status, g.instant(a.LastTransitionTime)), e)
		}
	}
}

// upgradeStamp tells whether ch, a change of Progressing with its status
// unchanged, sets lastTransitionTime to the time of e, a write that
// completes an upgrade (001 §Version reporting during an upgrade).
func (c Config) upgradeStamp(e timeline.Event, ch timeline.ConditionChange) bool {
	return ch.Type == condProgressing && c.atWrite(ch.After.LastTransitionTime, e.Time) &&
		(operatorVersionMoved(e) || ch.Before.Message != ch.After.Message)
}

// atWrite tells whether a lastTransitionTime is the time of a write at t:
// the API server keeps it to the second, so it may lie up to a second
// before t, and Tolerance more either side in real time.
func (c Config) atWrite(ltt, t time.Time) bool {
	lag := t.Sub(ltt)
	return lag >= -c.Tolerance && lag < time.Second+c.Tolerance
}

// CO-026: a reason, when there is one, is CamelCase: the godoc of
// ClusterOperator conditions (001 §Conditions refers to it) calls it "the
// CamelCase reason"; the pattern and length are what the API machinery asks of
// metav1.Condition (docs/upstream.md, "Kubernetes conditions in general").
// ClusterOperator's own schema does not enforce it: a convention, Style.
func (c Config) camelCaseReasons(j *judge.Judging) judge.Verdict {
	return c.verdict(r026)(j)
}

// camelCase is CO-026 on one write.
func (g *coJudging) camelCase(e timeline.Event) {
	f := &g.camel
	for _, ch := range e.Conditions {
		a := ch.After
		if a == nil || a.Reason == "" || (ch.Before != nil && ch.Before.Reason == a.Reason) {
			continue
		}
		f.Judged++
		if len(a.Reason) > maxReasonLength || !reasonPattern.MatchString(a.Reason) {
			f.Fail(fmt.Sprintf("%s %s at %s: reason %s is not CamelCase (%s, at most %d characters)",
				e.Object, ch.Type, g.off(e.Time), quote(a.Reason), reasonPattern, maxReasonLength), e)
		}
	}
}

// CO-024: a True Failing or Degraded carries a detailed message (001
// §Conditions: "describe in detail ... sufficient for an engineer or support
// person to triage the problem"; honored by components 2: "Failing
// communicates something is wrong"): a "should", Style. Judged on each write
// that makes it True or changes its message while True. The verdict names
// which of the two names each ClusterOperator uses (decision 001,
// conformance/clusteroperator/README.md: the same condition).
func (c Config) detailedFailing(j *judge.Judging) judge.Verdict {
	return c.verdict(r024)(j)
}

// detailedWrite is CO-024 on one write.
func (g *coJudging) detailedWrite(e timeline.Event) {
	f, uses := &g.detailed, g.uses
	if _, seen := uses[e.Object]; !seen {
		g.objects = append(g.objects, e.Object)
		uses[e.Object] = []string{}
	}
	for _, ch := range e.Conditions {
		if !slices.Contains(failingTypes, ch.Type) {
			continue
		}
		if !slices.Contains(uses[e.Object], ch.Type) {
			uses[e.Object] = append(uses[e.Object], ch.Type)
		}
		a := ch.After
		if a == nil || a.Status != statusTrue || !newlySaid(ch, statusTrue) {
			continue
		}
		f.Judged++
		if n := len(strings.Fields(a.Message)); n < minFailingWords {
			f.Fail(fmt.Sprintf("%s %s=True at %s: %s, fewer than %d words: too little for an engineer or support person to triage",
				e.Object, ch.Type, g.off(e.Time), wordsOf(a.Message, n), minFailingWords), e)
		}
	}
}

// usesNote says which of Failing and Degraded each ClusterOperator uses.
func usesNote(objects []timeline.ObjectRef, uses map[timeline.ObjectRef][]string) string {
	var notes []string
	for _, o := range objects {
		used := uses[o]
		slices.SortFunc(used, func(a, b string) int { return slices.Index(failingTypes, a) - slices.Index(failingTypes, b) })
		switch len(used) {
		case 0:
			notes = append(notes, fmt.Sprintf("%s reports neither Failing nor Degraded", o))
		case 1:
			notes = append(notes, fmt.Sprintf("%s uses %s", o, used[0]))
		default:
			notes = append(notes, fmt.Sprintf("%s uses both %s", o, strings.Join(used, " and ")))
		}
	}
	return strings.Join(notes, ", ")
}

// CO-025: Upgradeable=False carries a message that describes what must be
// fixed (001 §What should an operator report, honored by components 4:
// "The component should include a message that describes what must be
// fixed"): a "should", Style. What it says is the admin's to read; an
// empty one says nothing. Judged on each write that makes it False or
// changes its message while False.
func (c Config) upgradeableExplained(j *judge.Judging) judge.Verdict {
	return c.verdict(r025)(j)
}

// explainedWrite is CO-025 on one write.
func (g *coJudging) explainedWrite(e timeline.Event) {
	f := &g.explained
	for _, ch := range e.Conditions {
		a := ch.After
		if ch.Type != condUpgradeable || a == nil || a.Status != statusFalse || !newlySaid(ch, statusFalse) {
			continue
		}
		f.Judged++
		if strings.TrimSpace(a.Message) == "" {
			f.Fail(fmt.Sprintf("%s Upgradeable=False at %s has no message: it must describe what must be fixed", e.Object, g.off(e.Time)), e)
		}
	}
}

// newlySaid tells whether a change, whose condition now has status,
// says something new: the condition is added, comes to status, or has a
// new message.
func newlySaid(ch timeline.ConditionChange, status string) bool {
	b := ch.Before
	return b == nil || b.Status != status || b.Message != ch.After.Message
}

// instant writes a lastTransitionTime as an offset, "none" when unset.
func (g *coJudging) instant(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return g.off(t)
}
