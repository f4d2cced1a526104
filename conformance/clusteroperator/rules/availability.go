package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// CO-010: once a component has been installed (its installation complete, or
// Available=True reported), Available is True whenever its operands serve at
// full strength, from the reaction bound (+Tolerance) after they came to it
// until they leave it (001 §Conditions: "`Available` must be true if the
// operand is functional and available in the cluster at the level in status.
// If this is false, it means there is an outage"; decision 001,
// conformance/clusteroperator/README.md: judged for the whole run, not only
// its first True). Full strength, whatever the version of each pod, is a
// Deployment's replicas ready and a ready pod on each of a DaemonSet's nodes
// (world.serving): an operator may well call less an outage (a quorum lost),
// but not that. Not judged: a component with no operand on the timeline, a
// window its operator was down in before the status was due, one the run or
// the serving ends before the status is due. The verdict measures each
// reaction, from full strength to the write that reported Available.
func (c Config) availableWhileServing(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	took := reactions{name: "Available=True after the operands serve"}
	k := contractOf(j)
	for _, x := range k.components {
		if !x.hasOperands() {
			continue
		}
		from, ok := x.installed()
		if !ok {
			continue
		}
		for _, win := range x.servingWindows(from, j.End) {
			due := win.from.Add(c.slack())
			what := fmt.Sprintf("ClusterOperator/%s: its operands served at full strength from %s", x.name, j.Offset(win.from))
			switch {
			case !win.to.After(due):
				if win.open {
					g.Skip(what + ": the run ended before Available was due")
				}
				continue
			case k.procs.DownDuring(x.operator(), win.from, due):
				g.Skip(what + ": its operator was down before Available was due")
				continue
			}
			g.Judged++
			st := x.statusAt(due)
			if !availableIn(st) {
				evidence := []timeline.Event{win.ev}
				read := "no status"
				if st != nil {
					evidence, read = append(evidence, st.ev), availableRead(*st)
				}
				g.FailIn(fmt.Sprintf("%s: at %s it reported %s: that is an outage, and there was none", what, j.Offset(due), read),
					win.from, due, evidence...)
				continue
			}
			took.add(x.since(st, availableIn).ev.Time.Sub(win.from))
			for _, w := range x.mine() {
				if w.ev.Time.After(due) && w.ev.Time.Before(win.to) && !availableIn(&w) {
					g.FailIn(fmt.Sprintf("%s: at %s it reported %s while they still served", what, j.Offset(w.ev.Time), availableRead(w)),
						w.ev.Time, w.ev.Time, w.ev)
					break
				}
			}
		}
	}
	v := g.Verdict("not judged: no installed component's operands served at full strength in this run")
	v.Measures = took.measures(c.slack())
	return v
}

// availableIn tells whether the status after w reports Available=True.
func availableIn(w *coWrite) bool {
	if w == nil {
		return false
	}
	a, ok := w.conds[condAvailable]
	return ok && a.Status == statusTrue
}

// availableRead says what the status after w reports of Available.
func availableRead(w coWrite) string {
	if a, ok := w.conds[condAvailable]; ok {
		return fmt.Sprintf("Available %s %q", a.Status, a.Message)
	}
	return "no Available"
}

// installed is when x counts as installed: its first rollout complete, or
// its first Available=True, whichever came first; false if neither.
func (x *component) installed() (time.Time, bool) {
	var at time.Time
	if r := x.rollouts[0]; r.end != nil {
		at = r.end.ev.Time
	}
	for _, w := range x.mine() {
		if availableIn(&w) {
			if at.IsZero() || w.ev.Time.Before(at) {
				at = w.ev.Time
			}
			break
		}
	}
	return at, !at.IsZero()
}

// window is a span in which x's operands served at full strength: from
// the change that brought them to it (ev, at from, or the installation's
// instant if later) to the one that took them out of it (to; the run's
// end if open).
type window struct {
	from, to time.Time
	ev       timeline.Event
	open     bool
}

// servingWindows are x's spans of full strength after since, up to end.
func (x *component) servingWindows(since, end time.Time) []window {
	var out []window
	var cur *window
	for _, s := range x.steps {
		on := s.world.serving()
		switch {
		case on && cur == nil:
			cur = &window{from: s.ev.Time, ev: s.ev}
		case !on && cur != nil:
			cur.to = s.ev.Time
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		cur.to, cur.open = end, true
		out = append(out, *cur)
	}
	var kept []window
	for _, w := range out {
		if !w.to.After(since) {
			continue
		}
		if w.from.Before(since) {
			w.from = since
		}
		kept = append(kept, w)
	}
	return kept
}
