package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rule on the operator: OLM-011, the seed's promise read from the
// operator's side. 002 §Motivation: an operator "executing a critical
// process" must be able to tell OLM not to upgrade it; Story 2: it
// communicates "that OLM should not attempt to upgrade my operator until I
// tell it otherwise". The operator is told of the critical process by the
// world (operandAnnotation on a CR: opcert's convention, doc.go); what it
// writes is its own, on any of the seed's channels, as long as the gate
// the run's upgrades ask reads it.

// channel is what tells OLM's gate, in w, that the operator is not
// upgradeable: a description of the write that says so, "" when none
// does. gate is the gate the run's Upgrades ask ("" when no Upgrade is
// asked: any channel counts).
func (c Config) channel(w *world, gate string) string {
	if gate != gateProbe {
		for ref, o := range w.opConds {
			for _, x := range o.spec.Conditions {
				if x.Type == condUpgradeable && x.Status == statusFalse {
					return fmt.Sprintf("%s's spec.conditions has Upgradeable=False", ref)
				}
			}
		}
	}
	if gate == gateOperatorCondition {
		return ""
	}
	managed := false
	for ref, p := range w.probes {
		if p.spec == nil || p.spec.Manager != managerOperator {
			continue
		}
		managed = true
		if x, ok := p.conds[condUpgradeable]; ok && x.Status == statusFalse {
			return fmt.Sprintf("%s (manager operator) has Upgradeable=False", ref)
		}
	}
	if managed && gate == gateProbe {
		return "" // the aggregator leaves that Probe to the operator: its CRs reach no gate
	}
	for _, ns := range slices.Sorted(maps.Keys(w.crs)) {
		for _, r := range w.crs[ns] {
			expr := w.crds[w.crdOf(r.ref)].annotations[annotationPrefix+nameUpgradeable]
			if expr == "" {
				continue
			}
			p, err := compile(expr)
			if err == nil && c.blocking(p.eval(func(t string) string { return r.status[t] })) {
				return fmt.Sprintf("%s %s/%s blocks under %q", r.ref.Kind, r.ref.Namespace, r.ref.Name, expr)
			}
		}
	}
	return ""
}

// migrating are the CRs whose operand runs a critical process in w.
func migrating(w *world) []string {
	var out []string
	for _, ns := range w.crs {
		for _, r := range ns {
			if r.migrating {
				out = append(out, r.ref.Kind+" "+r.ref.Namespace+"/"+r.ref.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// askedGate is the gate the run's Upgrades ask, "" when none is asked.
func (s *story) askedGate() string {
	for i, e := range s.events {
		if e.IsWrite() && e.Object.Kind == kindUpgrade && e.Object.Group == groupOpcert {
			if u, ok := s.after[i].upgrades[e.Object]; ok && u.spec.Gate != "" {
				return u.spec.Gate
			}
		}
	}
	return ""
}

// operatorSays is OLM-011.
func (c Config) operatorSays(j *judge.Judging) judge.Verdict {
	s := storyOf(j)
	gate := s.askedGate()
	var g judge.Findings
	r := c.judgeIntervals(j, s, watch{
		actor: actorOperator,
		input: func(i int, e timeline.Event) bool {
			if !e.IsWrite() || !isCR(e.Object) {
				return false
			}
			was, now := s.before(i).crs[e.Object.Namespace][e.Object], s.after[i].crs[e.Object.Namespace][e.Object]
			return was.migrating != now.migrating
		},
		output: func(_ int, e timeline.Event) bool { return e.IsWrite() && e.Role == RoleOperator },
		check: func(w *world) (string, bool) {
			busy := migrating(w)
			if len(busy) == 0 {
				return "", false
			}
			if c.channel(w, gate) != "" {
				return "", true
			}
			return fmt.Sprintf("%s migrating, and nothing the %s gate reads says the operator is not upgradeable", strings.Join(busy, ", "), gateText(gate)), true
		},
	}, &g)
	v := g.Verdict("no operand migrated for longer than the reaction bound")
	v.Measures = appendMeasure(nil, c, "not upgradeable while migrating", r)
	return v
}

func gateText(gate string) string {
	if gate == "" {
		return "any"
	}
	return gate
}
