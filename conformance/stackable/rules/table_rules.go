package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the conditions the table derives (004 §Implementation details):
// STACKABLE-001 (Available), 002 (Progressing), 003 (Degraded), 004 (Paused
// and Stopped). They judge statuses: the ADR names no reasons and gives its
// messages as examples (decision 004, conformance/stackable/README.md).

// reads tells whether e changes what the operator owes cluster's
// conditions: any write of its workloads or their pods, and any write of
// the cluster but the operator's own status writes.
func reads(cluster timeline.ObjectRef, e timeline.Event) bool {
	if !e.IsWrite() {
		return false
	}
	if e.Object != cluster || e.Role != RoleOperator || e.Verb == timeline.VerbCreate || e.Verb == timeline.VerbDelete {
		return true
	}
	_, ann := e.Field(fieldAnnotations)
	_, spec := e.Field(fieldSpec)
	return ann || spec
}

// expect is what a rule accepts of one condition type.
type expect struct {
	typ  string
	want statuses
}

// ruleWatch is a rule's watch of one cluster.
type ruleWatch struct {
	rule int
	watch
}

// watches are the rules' watches of the cluster of story s, in Rules'
// order: the table's conditions (001 to 004), its workloads' replicas
// while stopped (006), its messages (009).
func (c Config) watches(s *story) []ruleWatch {
	out := []ruleWatch{{r001, c.conditionsFollow(s, c.availableWants)}}
	if !c.operatorRS() {
		out = append(out, ruleWatch{r002, c.conditionsFollow(s, progressingWants)}, ruleWatch{r003, c.conditionsFollow(s, degradedWants)})
	}
	return append(out, ruleWatch{r004, c.conditionsFollow(s, c.commandWants)}, ruleWatch{r006, c.scaledToZero(s)}, ruleWatch{r009, c.messagesNamePods(s)})
}

// conditionsFollow is the watch, in the cluster of story s, that its
// conditions are what wants says of the world (nil: nothing owed) within
// the reaction bound; state describes the world judged. A cluster that is
// gone or whose reconcile fails (spec.broken: the table applies only
// after a reconcile without errors, 004 §Implementation details,
// Precondition) owes nothing.
func (c Config) conditionsFollow(s *story, wants func(s *story, world scene) (exps []expect, state string)) watch {
	return watch{
		input:  func(e timeline.Event) bool { return reads(s.ref, e) },
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == s.ref && e.Role == RoleOperator },
		check: func(world, out scene) (string, bool) {
			if world.cluster == nil || world.cluster.spec.Broken != "" || out.cluster == nil {
				return "", false
			}
			exps, state := wants(s, world)
			if exps == nil {
				return "", false
			}
			for _, x := range exps {
				got, has := out.cluster.conds[x.typ]
				if !has || !x.want.has(got.Status) {
					return fmt.Sprintf("%s: %s is %s, want %s (%s)", s.ref, x.typ, conditionText(got, has), x.want, state), true
				}
			}
			return "", true
		},
	}
}

// conditionText writes a condition as a rule quotes it.
func conditionText(got timeline.Condition, has bool) string {
	if !has {
		return "absent"
	}
	return fmt.Sprintf("%s/%s %q", got.Status, got.Reason, got.Message)
}

// describe writes the roles a table was read from: "StatefulSet
// c1-server 2/3 available (c1-server-2 Failed)".
func describe(ms []member) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		want := fmt.Sprint(m.want)
		if !m.wantKnown {
			want = "?"
		}
		p := fmt.Sprintf("%s %s %d/%s available", m.ref.Kind, m.ref.Name, m.available(), want)
		var bad []string
		for _, name := range slices.Sorted(maps.Keys(m.podPhase)) {
			if ph := m.podPhase[name]; ph == phaseUnknown || ph == phaseFailed {
				bad = append(bad, name+" "+ph)
			}
		}
		if m.absent {
			bad = append(bad, "not created")
		}
		if len(bad) > 0 {
			p += " (" + strings.Join(bad, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

const noWorkload = "no SampleCluster with a workload, reconciled without errors"

// seedFacts is what the seed's table reads of a world's cluster, and the
// state it read; false when it reads nothing (no workload yet).
func seedFacts(s *story, sc scene) (facts, string, bool) {
	ms := sc.members(s.ref)
	if len(ms) == 0 {
		return facts{}, "", false
	}
	stopped := sc.cluster.command() == commandStopped
	state := describe(ms)
	if stopped {
		state += "; operator-command Stopped"
	}
	return factsOf(ms, podsOf(sc.labelled()), stopped), state, true
}

// availableWants is what STACKABLE-001 asks of Available.
func (c Config) availableWants(s *story, sc scene) ([]expect, string) {
	if c.operatorRS() {
		ms := sc.members(s.ref)
		if len(ms) == 0 {
			return nil, ""
		}
		statuses := make([]string, 0, len(ms))
		for _, m := range ms {
			statuses = append(statuses, operatorRSAvailable(m.counts))
		}
		return []expect{{condAvailable, statusOf(mergeOperatorRS(statuses))}}, describe(ms)
	}
	f, state, ok := seedFacts(s, sc)
	if !ok {
		return nil, ""
	}
	return []expect{{condAvailable, f.available()}}, state
}

// notBuilt is the verdict of a rule on a condition operator-rs does not
// build.
func (c Config) notBuilt(typ string) judge.Verdict {
	return judge.Verdict{Status: reports.Skip, Message: fmt.Sprintf("not judged: the %s profile builds no %s condition (docs/upstream.md; status/condition/{statefulset,deployment,daemonset}.rs build Available only)", c.profile(), typ)}
}

// progressingWants is what STACKABLE-002 asks of Progressing.
func progressingWants(s *story, sc scene) ([]expect, string) {
	f, state, ok := seedFacts(s, sc)
	if !ok {
		return nil, ""
	}
	return []expect{{condProgressing, f.progressing()}}, state
}

// degradedWants is what STACKABLE-003 asks of Degraded.
func degradedWants(s *story, sc scene) ([]expect, string) {
	f, state, ok := seedFacts(s, sc)
	if !ok {
		return nil, ""
	}
	return []expect{{condDegraded, f.degraded()}}, state
}

// commandWants is what STACKABLE-004 asks of Paused and Stopped.
func (c Config) commandWants(_ *story, sc scene) ([]expect, string) {
	if c.operatorRS() {
		op := sc.cluster.spec.ClusterOperation
		paused, stopped := operationRows(op)
		return []expect{{condReconciliationPaused, paused}, {condStopped, stopped}},
			fmt.Sprintf("clusterOperation reconciliationPaused %t, stopped %t", op.ReconciliationPaused, op.Stopped)
	}
	paused, stopped := commandRows(sc.cluster.command())
	return []expect{{condPaused, paused}, {condStopped, stopped}}, fmt.Sprintf("operator-command %q", sc.cluster.command())
}
