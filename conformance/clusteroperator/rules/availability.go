package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// CO-001: a component does not report Available the first time until its
// first rollout, its installation, is complete: every operand at its
// version and ready, a DaemonSet on more than half of its nodes (honored
// by components 1: "or within some reasonable percentage if the
// component must be installed to all nodes"; world.rolledOut). A
// ClusterOperator created before the timeline began is not judged. The
// operands' world just before the first Available=True, and as it stood
// Tolerance later, are kept until the end.
func (c Config) availableAfterInstall(j *judge.Judging) judge.Verdict { return c.verdict(r001)(j) }

// firstAvailable is the operator's first write of Available=True, with
// the world just before it and as it stood before Tolerance after it.
type firstAvailable struct {
	w            *coWrite
	before, late world
}

// firstAvailableJudged judges CO-001 at the end of the timeline.
func (g *coJudging) firstAvailableJudged(x *component) {
	m := x.co001
	t := x.t(r001)
	switch {
	case m == nil:
		return
	case !x.created:
		t.Skip(fmt.Sprintf("ClusterOperator/%s was created before the timeline began", x.name))
		return
	case !x.hasOperands():
		t.Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline", x.name, x.name))
		return
	}
	t.Judged++
	r, first := x.first, m.w
	if r.ended && (r.over.pos < first.pos || r.over.ev.Time.Before(first.ev.Time.Add(g.c.Tolerance))) ||
		m.before.rolledOut(r.to) || m.late.rolledOut(r.to) {
		return
	}
	lag, evs := m.before.lagging(r.to)
	t.FailIn(fmt.Sprintf("ClusterOperator/%s reported Available=True at %s before its installation, the rollout to %s begun at %s, was complete: %s",
		x.name, g.off(first.ev.Time), r.to, g.off(r.begin.Time), lag), r.begin.Time, first.ev.Time, append([]timeline.Event{first.ev}, evs...)...)
}

// CO-010: once a component has been installed (its installation complete,
// or Available=True reported), Available is True whenever its operands
// serve at full strength, from the reaction bound (+Tolerance) after they
// came to it until they leave it (001 §Conditions: "`Available` must be
// true if the operand is functional and available in the cluster at the
// level in status. If this is false, it means there is an outage";
// decision 001, conformance/clusteroperator/README.md: judged for the
// whole run, not only its first True). Full
// strength, whatever the version of each pod, is a Deployment's replicas
// ready and a ready pod on each of a DaemonSet's nodes (world.serving):
// an operator may well call less an outage (a quorum lost), but not that.
// Not judged: a component with no operand on the timeline, a window its
// operator was down in before the status was due, one the run or the
// serving ends before the status is due. The verdict measures each
// reaction, from full strength to the write that reported Available.
func (c Config) availableWhileServing(j *judge.Judging) judge.Verdict { return c.verdict(r010)(j) }

// window is a span in which x's operands serve at full strength, from the
// change that brought them to it (ev, at from, or the installation's
// instant if later), judged at its deadline and then at each write until
// it closes.
type window struct {
	from, due time.Time
	ev        timeline.Event
	fired     bool
	// cand is the first write after the deadline that did not report
	// Available: a failure once the window is known to go on past it.
	cand *coWrite
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
func availableRead(w *coWrite) string {
	if a, ok := w.conds[condAvailable]; ok {
		return fmt.Sprintf("Available %s %q", a.Status, a.Message)
	}
	return "no Available"
}

func (g *coJudging) openWindow(x *component, from time.Time) {
	x.co010 = &window{from: from, due: from.Add(g.c.slack()), ev: x.servedB}
}

func (w *window) what(g *coJudging, x *component) string {
	return fmt.Sprintf("ClusterOperator/%s: its operands served at full strength from %s", x.name, g.off(w.from))
}

func (w *window) tick(g *coJudging, x *component, now time.Time) {
	if !w.fired && now.After(w.due) && !g.postpone(x, w.from, &w.due) && now.After(w.due) {
		w.fire(g, x)
	}
	if x.co010 == w && w.cand != nil && now.After(w.cand.ev.Time) {
		w.confirm(g, x)
	}
}

// fire judges the status at the deadline.
func (w *window) fire(g *coJudging, x *component) {
	t := x.t(r010)
	if g.procs.DownDuring(x.operator(), w.from, w.due) {
		t.Skip(w.what(g, x) + ": its operator was down before Available was due")
		x.co010 = nil
		return
	}
	t.Judged++
	st := x.st
	if !availableIn(st) {
		evidence := []timeline.Event{w.ev}
		read := "no status"
		if st != nil {
			evidence, read = append(evidence, st.ev), availableRead(st)
		}
		t.FailIn(fmt.Sprintf("%s: at %s it reported %s: that is an outage, and there was none", w.what(g, x), g.off(w.due), read),
			w.from, w.due, evidence...)
		x.co010 = nil
		return
	}
	g.latency(r010).Add(max(x.avail.from.Sub(w.from), 0))
	w.fired = true
}

func (w *window) write(cw *coWrite) {
	if w.fired && w.cand == nil && !availableIn(cw) {
		w.cand = cw
	}
}

func (w *window) confirm(g *coJudging, x *component) {
	c := w.cand
	x.t(r010).FailIn(fmt.Sprintf("%s: at %s it reported %s while they still served", w.what(g, x), g.off(c.ev.Time), availableRead(c)),
		c.ev.Time, c.ev.Time, c.ev)
	x.co010 = nil
}

// close ends the window at t: the operands no longer serve.
func (w *window) close(g *coJudging, x *component, t time.Time) {
	if w.fired && w.cand != nil && w.cand.ev.Time.Before(t) {
		w.confirm(g, x)
	}
	x.co010 = nil
}

func (w *window) finish(g *coJudging, x *component, end time.Time) {
	if !w.fired {
		if g.postpone(x, w.from, &w.due) || !end.After(w.due) {
			x.t(r010).Skip(w.what(g, x) + ": the run ended before Available was due")
			x.co010 = nil
			return
		}
		w.fire(g, x)
	}
	if x.co010 == w && w.cand != nil {
		w.close(g, x, end)
	}
	x.co010 = nil
}
