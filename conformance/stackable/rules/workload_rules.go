package rules

import (
	"fmt"

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

// pause judges STACKABLE-005 at the story's event i of cluster cj, the
// span the cluster is paused in (the scene before the event judged): a
// write of one of its workloads by the operator offends only once the
// span is older than the slack (the reaction bound and the tolerance); an
// offence within it may have been decided before the operator saw the
// change, and is not judged.
func (g *judging) pause(cj *clusterJudge, i int) {
	c, s, e, f := g.c, cj.s, cj.s.ev(i), &cj.f[r005]
	if cj.paused && isWorkload(e.Object) && e.Role == RoleOperator {
		what := fmt.Sprintf("the operator's %s of %s while paused", e.Verb, e.Object)
		if c.slack() > 0 && !e.Time.After(cj.since.Add(c.slack())) {
			f.notes = append(f.notes, fmt.Sprintf("%s at %s, within %s of the change at %s", what, g.off(e.Time), c.slack(), g.off(cj.since)))
		} else {
			f.written = append(f.written, judge.Problem{Message: fmt.Sprintf("%s: %s at %s (since %s)", s.ref, what, g.off(e.Time), g.off(cj.since)),
				From: cj.since, To: e.Time, Evidence: []timeline.Event{e}})
		}
	}
	now := c.paused(s.at(i))
	if now && !cj.paused {
		cj.since = e.Time
		f.judged++
	}
	cj.paused = now
}

// scaledToZero is STACKABLE-006's watch of the cluster of story s.
func (c Config) scaledToZero(s *story) watch {
	return watch{
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
	}
}

func replicasText(n *int) string {
	if n == nil {
		return "unset (1)"
	}
	return fmt.Sprint(*n)
}
