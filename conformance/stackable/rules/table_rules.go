package rules

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the conditions the table derives (004 §Implementation
// details): STACKABLE-001 (Available), 002 (Progressing), 003 (Degraded),
// 004 (Paused and Stopped).

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
	_, ann := field(e, fieldAnnotations)
	_, spec := field(e, fieldSpec)
	return ann || spec
}

// expect is what a rule wants of one condition type.
type expect struct {
	typ  string
	want row
}

// conditionsFollow judges, for every cluster and every state of what it
// reads, that its conditions are what wants says (nil: nothing owed),
// within one reconcile; state describes the state judged. A cluster that
// is gone or whose reconcile fails (spec.broken, 004 §Implementation
// details, "Precondition - Reconcile without errors") owes nothing.
// nothing says why a verdict judged nothing.
func (c Config) conditionsFollow(j *conformance.Judging, nothing string, wants func(s *story, sc scene) (exps []expect, state string)) conformance.Verdict {
	all := storiesOf(j)
	var g conformance.Judgement
	for _, s := range all.clusters {
		c.judgeIntervals(j, all, s, watch{
			input:  func(e timeline.Event) bool { return reads(s.ref, e) },
			output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == s.ref && e.Role == RoleOperator },
			check: func(sc scene) (string, bool) {
				if sc.cluster == nil || sc.cluster.spec.Broken != "" {
					return "", false
				}
				exps, state := wants(s, sc)
				if exps == nil {
					return "", false
				}
				for _, x := range exps {
					got, has := sc.cluster.conds[x.typ]
					if !has || !x.want.matches(got) {
						return fmt.Sprintf("%s: %s is %s, want %s (%s)", s.ref, x.typ, conditionText(got, has), x.want, state), true
					}
				}
				return "", true
			},
		}, &g)
	}
	return g.Verdict(nothing)
}

// matches tells whether a condition is what the row asks.
func (r row) matches(got timeline.Condition) bool {
	return got.Status == r.status && (!r.fixed() || got.Reason == r.reason && got.Message == r.message())
}

// conditionText writes a condition as a rule quotes it.
func conditionText(got timeline.Condition, has bool) string {
	if !has {
		return "absent"
	}
	return fmt.Sprintf("%s/%s %q", got.Status, got.Reason, got.Message)
}

// describe writes the workloads a table was derived from: "StatefulSet
// c1-server 2/3 available (c1-server-2 Failed)".
func describe(ms []member) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		p := fmt.Sprintf("%s %s %d/%d available", m.ref.Kind, m.ref.Name, m.available(), m.replicas())
		var bad []string
		for _, name := range m.podsIn(phaseUnknown, phaseFailed) {
			bad = append(bad, name+" "+m.podPhase[name])
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

// seedTable is what the seed's table asks of a scene's cluster, and the
// state it read; false when it asks nothing (no workload yet).
func seedTable(s *story, sc scene) (table, string, bool) {
	if sc.cluster.command() == commandStopped {
		return stoppedRows(), "operator-command Stopped", true
	}
	ms := sc.members(s.ref)
	if len(ms) == 0 {
		return table{}, "", false
	}
	ts := make([]table, 0, len(ms))
	for _, m := range ms {
		ts = append(ts, seedRows(m.counts))
	}
	return mergeSeed(ts), describe(ms), true
}

// availableFollows is STACKABLE-001.
func (c Config) availableFollows(j *conformance.Judging) conformance.Verdict {
	return c.conditionsFollow(j, noWorkload, func(s *story, sc scene) ([]expect, string) {
		if c.operatorRS() {
			ms := sc.members(s.ref)
			if len(ms) == 0 {
				return nil, ""
			}
			statuses := make([]string, 0, len(ms))
			for _, m := range ms {
				statuses = append(statuses, operatorRSAvailable(m.counts))
			}
			return []expect{{condAvailable, row{status: mergeOperatorRS(statuses)}}}, describe(ms)
		}
		t, state, ok := seedTable(s, sc)
		if !ok {
			return nil, ""
		}
		return []expect{{condAvailable, t.available}}, state
	})
}

// notBuilt is the verdict of a rule on a condition operator-rs does not
// build.
func (c Config) notBuilt(typ string) conformance.Verdict {
	return conformance.Verdict{Status: reports.Skip, Message: fmt.Sprintf("not judged: the %s profile builds no %s condition (UPSTREAM; status/condition/{statefulset,deployment,daemonset}.rs build Available only)", c.profile(), typ)}
}

// progressingFollows is STACKABLE-002.
func (c Config) progressingFollows(j *conformance.Judging) conformance.Verdict {
	if c.operatorRS() {
		return c.notBuilt(condProgressing)
	}
	return c.conditionsFollow(j, noWorkload, func(s *story, sc scene) ([]expect, string) {
		t, state, ok := seedTable(s, sc)
		if !ok {
			return nil, ""
		}
		return []expect{{condProgressing, t.progressing}}, state
	})
}

// degradedFollows is STACKABLE-003.
func (c Config) degradedFollows(j *conformance.Judging) conformance.Verdict {
	if c.operatorRS() {
		return c.notBuilt(condDegraded)
	}
	return c.conditionsFollow(j, noWorkload, func(s *story, sc scene) ([]expect, string) {
		t, state, ok := seedTable(s, sc)
		if !ok {
			return nil, ""
		}
		return []expect{{condDegraded, t.degraded}}, state
	})
}

// commandFollows is STACKABLE-004.
func (c Config) commandFollows(j *conformance.Judging) conformance.Verdict {
	return c.conditionsFollow(j, "no SampleCluster reconciled without errors", func(s *story, sc scene) ([]expect, string) {
		if c.operatorRS() {
			op := sc.cluster.spec.ClusterOperation
			paused, stopped := operationRows(op)
			return []expect{{condReconciliationPaused, paused}, {condStopped, stopped}},
				fmt.Sprintf("clusterOperation reconciliationPaused %t, stopped %t", op.ReconciliationPaused, op.Stopped)
		}
		paused, stopped := commandRows(sc.cluster.command())
		return []expect{{condPaused, paused}, {condStopped, stopped}}, fmt.Sprintf("operator-command %q", sc.cluster.command())
	})
}
