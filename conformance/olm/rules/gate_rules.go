package rules

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on OLM: OLM-006 (the upgrade gate decides from what it reads)
// and OLM-008 (the OperatorCondition's conditions are copied).

// gateInput is what an Upgrade's gate reads in w: whether it blocks,
// why, and the reason a blocked Upgrade must give ("" when the seed and
// UPSTREAM give none: the probe gate).
type gateInput struct {
	blocked bool
	why     string
	reason  string
}

// gateOf reads the input of Upgrade u's gate in w; false for a gate the
// rules do not know.
func gateOf(w *world, ref timeline.ObjectRef, u upgrade) (gateInput, bool) {
	from := timeline.ObjectRef{Group: groupOperators, Namespace: ref.Namespace, Name: u.spec.From}
	switch u.spec.Gate {
	case gateProbe:
		from.Kind = kindProbe
		p, ok := w.probes[from]
		in := gateInput{why: fmt.Sprintf("%s has no Upgradeable=False", from)}
		if c, has := p.conds[condUpgradeable]; ok && has && c.Status == statusFalse {
			in.blocked, in.why = true, fmt.Sprintf("%s has Upgradeable=False", from)
		}
		return in, true
	case gateOperatorCondition:
		from.Kind = kindOperatorCondition
		in := gateInput{reason: reasonOCNotUpgradeable}
		o, ok := w.opConds[from]
		if !ok {
			in.why = fmt.Sprintf("there is no %s", from)
			return in, true
		}
		for _, c := range o.spec.Overrides {
			if c.Type == condUpgradeable {
				in.blocked = c.Status != statusTrue
				in.why = fmt.Sprintf("%s overrides Upgradeable with %s", from, c.Status)
				return in, true
			}
		}
		in.why = fmt.Sprintf("%s has no Upgradeable condition", from)
		for _, c := range o.status {
			if c.Type != condUpgradeable {
				continue
			}
			switch {
			case c.ObservedGeneration != o.generation:
				in.blocked, in.why = true, fmt.Sprintf("%s's Upgradeable is outdated (observedGeneration %d, generation %d)", from, c.ObservedGeneration, o.generation)
			case c.Status == statusFalse:
				in.blocked, in.why = true, fmt.Sprintf("%s has Upgradeable=False", from)
			default:
				in.why = fmt.Sprintf("%s has Upgradeable=%s", from, c.Status)
			}
		}
		return in, true
	}
	return gateInput{}, false
}

// gateDecides is OLM-006.
func (c Config) gateDecides(j *judge.Judging) judge.Verdict {
	s := storyOf(j)
	var g judge.Findings
	var measures []reports.Measure
	for _, ref := range s.refs(func(o timeline.ObjectRef) bool { return o.Kind == kindUpgrade && o.Group == groupOpcert }) {
		c.judgeDecisions(j, s, ref, &g)
		r := c.judgeIntervals(j, s, watch{
			actor: actorGate,
			input: func(_ int, e timeline.Event) bool {
				if !e.IsWrite() {
					return false
				}
				if e.Object == ref {
					return e.Role != RoleOLM
				}
				return e.Object.Group == groupOperators && e.Object.Namespace == ref.Namespace &&
					(e.Object.Kind == kindProbe || e.Object.Kind == kindOperatorCondition)
			},
			output: func(_ int, e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Role == RoleOLM },
			check: func(w *world) (string, bool) {
				u, ok := w.upgrades[ref]
				if !ok {
					return "", false
				}
				in, known := gateOf(w, ref, u)
				if !known || u.status.Phase == phaseSucceeded {
					// A success is judged where it was written (judgeDecisions).
					return "", known
				}
				if !in.blocked {
					return fmt.Sprintf("%s is %s, not %s, though %s", ref, phaseText(u.status), phaseSucceeded, in.why), true
				}
				if u.status.Phase != phasePending || in.reason != "" && u.status.Reason != in.reason {
					return fmt.Sprintf("%s is %s, want %s: %s", ref, phaseText(u.status), strings.TrimSuffix(phasePending+"/"+in.reason, "/"), in.why), true
				}
				return "", true
			},
		}, &g)
		measures = appendMeasure(measures, c, ref.String(), r)
	}
	v := g.Verdict("no Upgrade")
	v.Measures = measures
	return v
}

// judgeDecisions judges the writes that make Upgrade ref Succeeded: the
// gate's input must allow the upgrade then (at the write, or within the
// tolerance before it); and Succeeded is final.
func (c Config) judgeDecisions(j *judge.Judging, s *story, ref timeline.ObjectRef, g *judge.Findings) {
	for i, e := range s.events {
		if !e.IsWrite() || e.Object != ref || e.Role != RoleOLM {
			continue
		}
		was, after := s.before(i).upgrades[ref], s.after[i].upgrades[ref]
		switch {
		case was.status.Phase == phaseSucceeded && after.status.Phase != phaseSucceeded:
			g.FailIn(fmt.Sprintf("%s at %s: Succeeded is final, but the gate wrote %s", ref, j.Offset(e.Time), phaseText(after.status)),
				e.Time, e.Time, e)
		case was.status.Phase != phaseSucceeded && after.status.Phase == phaseSucceeded:
			in, known := gateOf(s.before(i), ref, after)
			if !known {
				continue
			}
			g.Judged++
			if in.blocked && c.blockedThrough(s, i, ref, after) {
				g.FailIn(fmt.Sprintf("%s at %s: Succeeded while %s", ref, j.Offset(e.Time), in.why), e.Time.Add(-c.allowance()), e.Time, e)
			}
		}
	}
}

// blockedThrough tells whether u's gate blocked all through the
// tolerance before event i: at no event in that window did it allow.
func (c Config) blockedThrough(s *story, i int, ref timeline.ObjectRef, u upgrade) bool {
	from := s.events[i].Time.Add(-c.allowance())
	for k := i - 1; k >= 0 && !s.events[k].Time.Before(from); k-- {
		if in, _ := gateOf(s.before(k), ref, u); !in.blocked {
			return false
		}
	}
	return true
}

func phaseText(st upgradeStatus) string {
	if st.Phase == "" {
		return "without a phase"
	}
	return st.Phase + "/" + st.Reason
}

// conditionsCopied is OLM-008.
func (c Config) conditionsCopied(j *judge.Judging) judge.Verdict {
	s := storyOf(j)
	var g judge.Findings
	var measures []reports.Measure
	for _, ref := range s.refs(func(o timeline.ObjectRef) bool { return o.Kind == kindOperatorCondition && o.Group == groupOperators }) {
		r := c.judgeIntervals(j, s, watch{
			actor:  actorCopier,
			input:  func(_ int, e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Actor != actorCopier },
			output: func(_ int, e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Actor == actorCopier },
			check: func(w *world) (string, bool) {
				o, ok := w.opConds[ref]
				if !ok {
					return "", false
				}
				if why := copyProblem(o); why != "" {
					return fmt.Sprintf("%s: %s", ref, why), true
				}
				return "", true
			},
		}, &g)
		measures = appendMeasure(measures, c, ref.String(), r)
	}
	v := g.Verdict("no OperatorCondition")
	v.Measures = measures
	return v
}

// copyProblem says how o's status.conditions differ from its
// spec.conditions stamped with its generation; "" when they do not.
func copyProblem(o opCond) string {
	got := map[string]ocCondition{}
	for _, c := range o.status {
		got[c.Type] = c
	}
	for _, want := range o.spec.Conditions {
		want.ObservedGeneration = o.generation
		c, ok := got[want.Type]
		switch {
		case !ok:
			return fmt.Sprintf("spec condition %s is not in status", want.Type)
		case c != want:
			return fmt.Sprintf("status condition %s is %s, want %s", want.Type, ocText(c), ocText(want))
		}
		delete(got, want.Type)
	}
	for _, c := range o.status {
		if _, extra := got[c.Type]; extra {
			return fmt.Sprintf("status condition %s is not in spec", c.Type)
		}
	}
	return ""
}

func ocText(c ocCondition) string {
	return fmt.Sprintf("%s/%s %q observedGeneration %d", c.Status, c.Reason, c.Message, c.ObservedGeneration)
}
