package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The contract rules on Available, Progressing, Failing or Degraded and
// Upgradeable (001 §What should an operator report, honored by components
// 1 to 4; 001 §Conditions), over the component's rollouts (story.go).

// CO-004: during a rollout to B that lasts more than a second or two,
// Progressing=True naming B is reported no later than Significant plus the
// reaction bound (+Tolerance) after it began, and stays so, naming B, until
// the rollout is over (001 §Conditions: "Progressing must be true if the
// operator is actually making change to the operand"; 001 §Version reporting
// during an upgrade: "if the amount of time it takes to do the upgrade is
// significant (more than a second or two) the operator should report
// Progressing=true"; honored by components 3: "it should include the version
// in the message"; decision 001, conformance/clusteroperator/README.md: for
// the whole move). It may be reported already as the rollout begins, in a
// write just before its spec write at the same instant. A rollout over before
// it is due owes nothing; one the run ends, or the operator is down, before it
// is due is not judged. The verdict measures each reaction, from the rollout's
// beginning to the status that first named B.
func (c Config) progressingDuringRollout(j *judge.Judging) judge.Verdict { return c.verdict(r004)(j) }

// reporting is CO-004 over the rollout under way: the status that named
// its version by the deadline (named, the write's position), or the last
// one before it (last), and the first write after it that no longer
// names it (cand): a failure unless the rollout is over within Tolerance.
type reporting struct {
	r         *rollout
	from, due time.Time
	said      bool
	named     int
	last      *coWrite
	took      time.Duration
	cand      *coWrite
	fired     bool
}

// reportBegun starts CO-004 on a rollout that begins, from the status as
// it stood Tolerance before.
func (g *coJudging) reportBegun(x *component, r *rollout) {
	p := &reporting{r: r, from: r.begin.Time.Add(-g.c.Tolerance), due: r.begin.Time.Add(g.c.significant() + g.c.slack()), named: -1}
	if p.last = x.statusBefore(p.from); p.last != nil && progressingNames(p.last, r.to) {
		p.said, p.named = true, p.last.pos
	}
	x.co004 = p
	for _, w := range x.recent {
		if !w.ev.Time.Before(p.from) {
			p.feed(g, x, w)
		}
	}
}

func (p *reporting) what(g *coJudging, x *component) string {
	return fmt.Sprintf("ClusterOperator/%s: the rollout to %s begun at %s", x.name, p.r.to, g.off(p.r.begin.Time))
}

func (p *reporting) feed(g *coJudging, x *component, w *coWrite) {
	if !p.said && !w.ev.Time.Before(p.from) && !w.ev.Time.After(p.due) {
		p.last = w
		if progressingNames(w, p.r.to) {
			p.said, p.named, p.took = true, w.pos, w.ev.Time.Sub(p.r.begin.Time)
		}
	}
	if p.said && p.cand == nil && w.mine() && w.pos > p.named && !progressingNames(w, p.r.to) {
		p.cand = w
	}
}

func (p *reporting) tick(g *coJudging, x *component, now time.Time) {
	if !p.fired && now.After(p.due) && !g.postpone(x, p.r.begin.Time, &p.due) && now.After(p.due) {
		p.fire(g, x)
	}
	if x.co004 == p && p.fired && p.cand != nil && now.After(p.cand.ev.Time.Add(g.c.Tolerance)) {
		p.confirm(g, x)
	}
}

func (p *reporting) fire(g *coJudging, x *component) {
	t := x.t(r004)
	if g.procs.DownDuring(x.operator(), p.r.begin.Time, p.due) {
		t.Skip(p.what(g, x) + ": its operator was down before Progressing was due")
		x.co004 = nil
		return
	}
	t.Judged++
	if !p.said {
		evidence, read := []timeline.Event{p.r.begin}, "no Progressing"
		if p.last != nil {
			evidence = append(evidence, p.last.ev)
			read = progressingRead(p.last)
		}
		t.FailIn(fmt.Sprintf("%s was not reported Progressing=True naming %s by %s: %s", p.what(g, x), p.r.to, g.off(p.due), read), p.r.begin.Time, p.due, evidence...)
		x.co004 = nil
		return
	}
	g.latency(r004).Add(max(p.took, 0))
	p.fired = true
}

// confirm fails the rollout for the write that no longer named its
// version while it was under way. In real time the operator may see the
// end up to Tolerance before the timeline does (its watch and the
// recorder's deliver in their own order): a write that close to the end
// is not held to it.
func (p *reporting) confirm(g *coJudging, x *component) {
	w := p.cand
	x.t(r004).FailIn(fmt.Sprintf("%s: at %s, with the rollout still under way, %s no longer names %s as Progressing=True",
		p.what(g, x), g.off(w.ev.Time), progressingRead(w), p.r.to), w.ev.Time, w.ev.Time, w.ev)
	x.co004 = nil
}

// close ends CO-004 on a rollout that is over at s.
func (p *reporting) close(g *coJudging, x *component, s step) {
	if p.fired && p.cand != nil && !p.cand.ev.Time.After(s.ev.Time.Add(-g.c.Tolerance)) {
		p.confirm(g, x)
	}
	x.co004 = nil
}

func (p *reporting) finish(g *coJudging, x *component, end time.Time) {
	if !p.fired {
		if g.postpone(x, p.r.begin.Time, &p.due) || end.Before(p.due) {
			x.t(r004).Skip(p.what(g, x) + ": the run ended before Progressing was due")
			x.co004 = nil
			return
		}
		p.fire(g, x)
	}
	if x.co004 == p && p.cand != nil {
		p.confirm(g, x)
	}
	x.co004 = nil
}

// progressingRead says what the status after w reports of Progressing.
func progressingRead(w *coWrite) string {
	if p, ok := w.conds[condProgressing]; ok {
		return fmt.Sprintf("Progressing %s %q", p.Status, p.Message)
	}
	return "no Progressing"
}

// progressingNames tells whether the status after w reports
// Progressing=True naming version v.
func progressingNames(w *coWrite, v string) bool {
	p, ok := w.conds[condProgressing]
	return ok && p.Status == statusTrue && mentions(p.Message, v)
}

// CO-005: Progressing does not turn True while the component is
// reconciling a known state (honored by components 3: "It should not
// report progressing when it is reconciling a previously known state"):
// a write that turns it True is made while a rollout is under way, or
// after the operator wrote, or tried to write, an operand spec since
// Progressing was last at rest (a change the timeline does not record, a
// configuration, counts: doc.go, Readings), each within the reaction
// bound (+Tolerance) either way: an operator may announce a move just
// before it writes the specs, or see a short rollout only after it
// ended. A "should not": a Style rule. A turn is judged once the bound
// after it has passed; a component with no operand on the timeline by
// then is not judged.
func (c Config) noProgressAtRest(j *judge.Judging) judge.Verdict { return c.verdict(r005)(j) }

// turn is a write that turned Progressing True, until the bound after it
// has passed: whether a rollout was under way around it, and whether the
// operator tried an operand spec since Progressing was at rest.
type turn struct {
	w              *coWrite
	rest           time.Time
	rolling, tried bool
}

// progressingTurn notes what an operator's write does to Progressing.
func (g *coJudging) progressingTurn(x *component, w *coWrite) {
	turned := false
	for _, ch := range w.ev.Conditions {
		if ch.Type != condProgressing {
			continue
		}
		was := ch.Before != nil && ch.Before.Status == statusTrue
		is := ch.After != nil && ch.After.Status == statusTrue
		turned = is && !was
		if was && !is {
			t := w.ev.Time
			x.rest = &t
		}
	}
	if !turned {
		return
	}
	p := &turn{w: w}
	if x.rest != nil {
		p.rest = *x.rest
	}
	from := w.ev.Time.Add(-g.c.slack())
	p.rolling = x.cur != nil && x.cur.over == nil || x.lastOver != nil && !x.lastOver.Before(from)
	p.tried = x.tried != nil && !x.tried.Before(p.rest)
	x.co005 = append(x.co005, p)
}

// settleTurns judges the turns the bound after which has passed by now
// (all of them at the end).
func (g *coJudging) settleTurns(x *component, now time.Time, end bool) {
	for len(x.co005) > 0 {
		p := x.co005[0]
		t := p.w.ev.Time
		if !end && !now.After(t.Add(g.c.slack())) {
			return
		}
		x.co005 = x.co005[1:]
		tl := x.t(r005)
		if !x.hasOperands() {
			// A recording of a cluster has no operands of opcert's
			// world: what a rollout is cannot be told from it.
			tl.Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline by %s", x.name, x.name, g.off(earlier(t.Add(g.c.slack()), now))))
			continue
		}
		tl.Judged++
		if p.rolling || p.tried {
			continue
		}
		since := "since the run began"
		if !p.rest.IsZero() {
			since = "since Progressing was at rest at " + g.off(p.rest)
		}
		tl.FailIn(fmt.Sprintf("ClusterOperator/%s turned Progressing True at %s (%q) with no rollout under way and no operand spec written %s: reconciling a known state is no progress",
			x.name, g.off(t), p.w.conds[condProgressing].Message, since), p.rest, t, p.w.ev)
	}
}

// failing tells whether the status after w reports Failing or Degraded True
// (decision 001, conformance/clusteroperator/README.md: one condition under
// two names).
func failing(w *coWrite) bool {
	if w == nil {
		return false
	}
	for _, t := range failingTypes {
		if cd, ok := w.conds[t]; ok && cd.Status == statusTrue {
			return true
		}
	}
	return false
}

// CO-008: a rollout that makes no progress for Stuck has Failing or
// Degraded True from then (+the reaction bound, +Tolerance) until it
// progresses, completes or gives way to another (honored by components 2:
// "A component reports Failing when it can't accomplish its task"; 001
// §Conditions: "Failing should be true if the operator has encountered an
// error that is preventing it or it's operand from working properly").
// Progress is a spec write of the rollout, a pod at its version created
// or changing readiness, or a pod of another version gone. Not judged
// when the run ends, or the operator is down, before it is due.
func (c Config) failingWhenStuck(j *judge.Judging) judge.Verdict { return c.verdict(r008)(j) }

// stall is the rollout under way since its last progress (moved).
type stall struct {
	r       *rollout
	moved   step
	at, due time.Time
	fired   bool
}

// progressed ends the stall of x's rollout r at s and begins the next.
func (g *coJudging) progressed(x *component, r *rollout, s step) {
	if p := x.co008; p != nil {
		p.close(x)
	}
	at := s.ev.Time.Add(g.c.stuck())
	x.co008 = &stall{r: r, moved: s, at: at, due: at.Add(g.c.slack())}
}

func (p *stall) what(g *coJudging, x *component) string {
	return fmt.Sprintf("ClusterOperator/%s: the rollout to %s made no progress from %s", x.name, p.r.to, g.off(p.moved.ev.Time))
}

func (p *stall) tick(g *coJudging, x *component, now time.Time) {
	if !p.fired && now.After(p.due) && !p.postpone(g, x) && now.After(p.due) {
		p.fire(g, x)
	}
}

func (p *stall) fire(g *coJudging, x *component) {
	t := x.t(r008)
	if g.procs.DownDuring(x.operator(), p.moved.ev.Time, p.due) {
		t.Skip(p.what(g, x) + ": its operator was down before Failing or Degraded was due")
		x.co008 = nil
		return
	}
	t.Judged++
	if st := x.st; !failing(st) {
		evidence := []timeline.Event{p.moved.ev}
		if st != nil {
			evidence = append(evidence, st.ev)
		}
		t.FailIn(fmt.Sprintf("%s: neither Failing nor Degraded was True by %s (%s and the reaction bound later)", p.what(g, x), g.off(p.due), g.c.stuck()),
			p.moved.ev.Time, p.due, evidence...)
		x.co008 = nil
		return
	}
	g.latency(r008).Add(max(x.fail.from.Sub(p.at), 0))
	p.fired = true
}

func (p *stall) write(g *coJudging, x *component, w *coWrite) {
	if p.fired && !failing(w) {
		x.t(r008).FailIn(fmt.Sprintf("%s: Failing and Degraded were left not True at %s with still no progress", p.what(g, x), g.off(w.ev.Time)),
			w.ev.Time, w.ev.Time, w.ev)
		x.co008 = nil
	}
}

// postpone moves the stall's deadline past its operator's perturbation
// windows: one over the last progress, which the operator is owed to see
// only the bound after the window (its stall then counted from when it
// could see it),
// and one over the deadline itself (coJudging.postpone). It tells whether
// a window is still open.
func (p *stall) postpone(g *coJudging, x *component) bool {
	seen, ok := g.windows.Owed(x.operator(), p.moved.ev.Time, g.c.slack())
	if !ok {
		return true
	}
	if at := seen.Add(g.c.stuck() - g.c.slack()); at.After(p.at) {
		p.at, p.due = at, at.Add(g.c.slack())
	}
	return g.postpone(x, p.at, &p.due)
}

// close ends the stall at s: the rollout progressed or is over (before
// its deadline when it had not fired: it owed nothing).
func (p *stall) close(x *component) { x.co008 = nil }

func (p *stall) finish(g *coJudging, x *component, end time.Time) {
	if !p.fired {
		if p.postpone(g, x) || end.Before(p.due) {
			x.t(r008).Skip(p.what(g, x) + ": the run ended before Failing or Degraded was due")
			x.co008 = nil
			return
		}
		p.fire(g, x)
	}
	x.co008 = nil
}
