package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on OLM: OLM-006 (the upgrade gate decides from what it reads)
// and OLM-008 (the OperatorCondition's conditions are copied).

// gateInput is what an Upgrade's gate reads in w: whether it blocks,
// why, and the reason a blocked Upgrade must give ("" when the seed and
// docs/upstream.md give none: the probe gate).
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
func (c Config) gateDecides(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r006] }

// gateWatch is OLM-006's watch of Upgrade ref: the gate's answer.
func gateWatch(ref timeline.ObjectRef) watch {
	return watch{
		actor: actorGate,
		input: func(e timeline.Event, _, _ *world) bool {
			if !e.IsWrite() {
				return false
			}
			if e.Object == ref {
				return e.Role != RoleOLM
			}
			return gateRead(e, ref.Namespace)
		},
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Role == RoleOLM },
		check: func(w *world) (string, bool) {
			u, ok := w.upgrades[ref]
			if !ok {
				return "", false
			}
			in, known := gateOf(w, ref, u)
			if !known || u.status.Phase == phaseSucceeded {
				// A success is judged where it was written (judgeDecision).
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
	}
}

// gateRead tells whether e is a write of what a gate reads in namespace
// ns: a Probe or an OperatorCondition.
func gateRead(e timeline.Event, ns string) bool {
	return e.Object.Group == groupOperators && e.Object.Namespace == ns &&
		(e.Object.Kind == kindProbe || e.Object.Kind == kindOperatorCondition)
}

// upgradeProto is OLM-006's watch of an Upgrade in namespace ns not
// written yet: the changes of what its gate will read.
func upgradeProto(ns string) watch {
	return watch{
		actor:  actorGate,
		input:  func(e timeline.Event, _, _ *world) bool { return e.IsWrite() && gateRead(e, ns) },
		output: func(timeline.Event) bool { return false },
		check:  notJudged,
	}
}

// judgeDecision judges a write e of an Upgrade, which moved the world
// from was to now: one that makes it Succeeded must find the gate's input
// allowing the upgrade (at the write, or within the tolerance before it);
// and Succeeded is final.
func (c Config) judgeDecision(g *olmJudging, e timeline.Event, was, now *world) {
	ref := e.Object
	if e.Role != RoleOLM {
		return
	}
	rec := g.decisions[ref]
	before, after := was.upgrades[ref], now.upgrades[ref]
	switch {
	case before.status.Phase == phaseSucceeded && after.status.Phase != phaseSucceeded:
		rec.FailIn(fmt.Sprintf("%s at %s: Succeeded is final, but the gate wrote %s", ref, g.off(e.Time), phaseText(after.status)),
			e.Time, e.Time, e)
	case before.status.Phase != phaseSucceeded && after.status.Phase == phaseSucceeded:
		in, known := gateOf(was, ref, after)
		if !known {
			return
		}
		rec.Judged++
		if in.blocked && c.blockedThrough(g, e.Time, ref, after) {
			rec.FailIn(fmt.Sprintf("%s at %s: Succeeded while %s", ref, g.off(e.Time), in.why), e.Time.Add(-c.allowance()), e.Time, e)
		}
	}
}

// blockedThrough tells whether u's gate blocked all through the
// tolerance before an event at t: at no event in that window did it
// allow.
func (c Config) blockedThrough(g *olmJudging, t time.Time, ref timeline.ObjectRef, u upgrade) bool {
	from := t.Add(-c.allowance())
	for _, m := range g.recent {
		if m.t.Before(from) {
			continue
		}
		if in, _ := gateOf(m.before, ref, u); !in.blocked {
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
func (c Config) conditionsCopied(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r008] }

// copyWatch is OLM-008's watch of OperatorCondition ref: its status,
// which OLM copies.
func copyWatch(ref timeline.ObjectRef) watch {
	return watch{
		actor: actorCopier,
		input: func(e timeline.Event, _, _ *world) bool {
			return e.IsWrite() && e.Object == ref && e.Actor != actorCopier
		},
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Actor == actorCopier },
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
	}
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
