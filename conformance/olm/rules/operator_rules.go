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

// operatorSays is OLM-011.
func (c Config) operatorSays(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r011] }

// saysWatch is OLM-011's watch of the operator, the run's Upgrades asking
// gate ("" none, or one the rules do not know): its problems name the
// gate by gateMark, until the first Upgrade says which it is.
func (c Config) saysWatch(gate string) watch {
	return watch{
		actor: actorOperator,
		input: func(e timeline.Event, was, now *world) bool {
			if !e.IsWrite() || !isCR(e.Object) {
				return false
			}
			return was.crs[e.Object.Namespace][e.Object].migrating != now.crs[e.Object.Namespace][e.Object].migrating
		},
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Role == RoleOperator },
		check: func(w *world) (string, bool) {
			busy := migrating(w)
			if len(busy) == 0 {
				return "", false
			}
			if c.channel(w, gate) != "" {
				return "", true
			}
			return fmt.Sprintf("%s migrating, and nothing the %s gate reads says the operator is not upgradeable", strings.Join(busy, ", "), gateMark), true
		},
	}
}

func gateText(gate string) string {
	if gate == "" {
		return "any"
	}
	return gate
}
