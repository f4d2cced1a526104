package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the operator's writes of the workloads a cluster owns:
// STACKABLE-005 (paused: none), 006 (stopped: no replicas).

// paused tells whether the operator must leave the cluster's workloads
// alone: operator-command Paused (004 §Implementation details, Paused
// row), or operator-rs's spec.clusterOperation.reconciliationPaused
// (cluster_resources.rs: the ReconciliationPaused strategy only gets).
func (c Config) paused(sc scene) bool {
	if sc.cluster == nil {
		return false
	}
	if c.operatorRS() {
		return sc.cluster.spec.ClusterOperation.ReconciliationPaused
	}
	return sc.cluster.command() == commandPaused
}

// stopped tells whether the cluster's workloads must have no replicas:
// operator-command Stopped (004 §Implementation details, Stopped row), or
// operator-rs's spec.clusterOperation.stopped unless reconciliation is
// paused, which takes precedence (commons/cluster_operation.rs).
func (c Config) stopped(sc scene) bool {
	if sc.cluster == nil {
		return false
	}
	if c.operatorRS() {
		op := sc.cluster.spec.ClusterOperation
		return op.Stopped && !op.ReconciliationPaused
	}
	return sc.cluster.command() == commandStopped
}

// during judges, in every cluster, each span in which holds is true of
// the scene (already before the event judged): an event offends (what it
// does, or "") only once the span is older than the slack (the reaction
// bound and the tolerance); an offence within it may have been decided
// before the operator saw the change, and is not judged.
func (c Config) during(j *judge.Judging, holds func(sc scene) bool, offends func(s *story, e timeline.Event) string, g *judge.Findings) {
	for _, s := range storiesOf(j).clusters {
		var since time.Time
		open := false
		for i, e := range s.events {
			if open {
				if what := offends(s, e); what != "" {
					if c.slack() > 0 && !e.Time.After(since.Add(c.slack())) {
						g.Skip(fmt.Sprintf("%s at %s, within %s of the change at %s", what, j.Offset(e.Time), c.slack(), j.Offset(since)))
					} else {
						g.FailIn(fmt.Sprintf("%s: %s at %s (since %s)", s.ref, what, j.Offset(e.Time), j.Offset(since)), since, e.Time, e)
					}
				}
			}
			now := holds(s.after[i])
			if now && !open {
				since, open = e.Time, true
				g.Judged++
			}
			open = now
		}
	}
}

// leftAlone is STACKABLE-005.
func (c Config) leftAlone(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	c.during(j, c.paused, func(s *story, e timeline.Event) string {
		if !isWorkload(e.Object) || e.Role != RoleOperator {
			return ""
		}
		return fmt.Sprintf("the operator's %s of %s while paused", e.Verb, e.Object)
	}, &g)
	return g.Verdict("no SampleCluster paused")
}

// scaledToZero is STACKABLE-006.
func (c Config) scaledToZero(j *judge.Judging) judge.Verdict {
	all := storiesOf(j)
	var g judge.Findings
	r := &reactions{name: "replicas to 0"}
	for _, s := range all.clusters {
		c.judge(j, all, s, watch{
			input: func(e timeline.Event) bool {
				return e.IsWrite() && e.Role != RoleOperator || reads(s.ref, e) && e.Object == s.ref
			},
			output: func(e timeline.Event) bool { return e.IsWrite() && isWorkload(e.Object) && e.Role == RoleOperator },
			check: func(world, out scene) (string, bool) {
				if !c.stopped(world) || world.cluster.spec.Broken != "" {
					return "", false
				}
				for _, m := range out.labelled() {
					switch {
					case m.kind == kindDaemonSet && m.status.DesiredNumberScheduled > 0:
						return fmt.Sprintf("%s: stopped, but %s is not deleted and schedules %d pods", s.ref, m.ref, m.status.DesiredNumberScheduled), true
					case m.kind != kindDaemonSet && (m.spec == nil || *m.spec != 0):
						return fmt.Sprintf("%s: stopped, but %s has spec.replicas %s", s.ref, m.ref, replicasText(m.spec)), true
					}
				}
				return "", true
			},
		}, &g, r)
	}
	return r.verdict(&g, "no SampleCluster stopped", c.slack())
}

func replicasText(n *int) string {
	if n == nil {
		return "unset (1)"
	}
	return fmt.Sprint(*n)
}
