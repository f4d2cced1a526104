package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// CO-009: while the administrator's ConfigMap X-admin holds an
// upgradeBlocker, X reports Upgradeable=False, from the reaction bound
// (+Tolerance) after it was written; once it is cleared, Upgradeable is
// not False from the same slack on (honored by components 4: "A
// component reports Upgradeable as false when it wishes to prevent an
// upgrade for an admin-correctable condition"). What the message says is
// CO-025's (a "should"). The verdict measures each reaction, from the
// blocker's write to the write that reported it.
func (c Config) upgradeableBlocked(j *judge.Judging) judge.Verdict { return c.verdict(r009)(j) }

// blocking is CO-009 over the blocker as it stands: judged at its
// deadline, then at each write until the next blocker; cand is the first
// write after the deadline not as it asks, a failure unless the next
// blocker comes at its instant.
type blocking struct {
	b     blocker
	due   time.Time
	fired bool
	cand  *coWrite
}

// block notes a change of x's blocker.
func (g *coJudging) block(x *component, b blocker) {
	first := x.blocker == nil
	if p := x.co009; p != nil {
		p.close(g, x, b.ev.Time)
	}
	x.blocker = &b
	if b.text == "" && first {
		return // nothing was blocked: nothing to clear
	}
	x.co009 = &blocking{b: b, due: b.ev.Time.Add(g.c.slack())}
}

func (p *blocking) what(g *coJudging, x *component) string {
	if p.b.text == "" {
		return fmt.Sprintf("ClusterOperator/%s: the blocker cleared at %s", x.name, g.off(p.b.ev.Time))
	}
	return fmt.Sprintf("ClusterOperator/%s: the blocker %q written at %s", x.name, p.b.text, g.off(p.b.ev.Time))
}

func (p *blocking) tick(g *coJudging, x *component, now time.Time) {
	if !p.fired && now.After(p.due) && !g.postpone(x, p.b.ev.Time, &p.due) && now.After(p.due) {
		p.fire(g, x)
	}
	if x.co009 == p && p.cand != nil && now.After(p.cand.ev.Time) {
		p.confirm(g, x)
	}
}

func (p *blocking) fire(g *coJudging, x *component) {
	t := x.t(r009)
	if g.procs.DownDuring(x.operator(), p.b.ev.Time, p.due) {
		t.Skip(p.what(g, x) + ": its operator was down before Upgradeable was due")
		x.co009 = nil
		return
	}
	t.Judged++
	st := x.st
	if ok, read := blockedAs(st, p.b.text); !ok {
		evidence := []timeline.Event{p.b.ev}
		if st != nil {
			evidence = append(evidence, st.ev)
		}
		t.FailIn(fmt.Sprintf("%s: at %s Upgradeable %s", p.what(g, x), g.off(p.due), read), p.b.ev.Time, p.due, evidence...)
		x.co009 = nil
		return
	}
	if st != nil { // an operator that never wrote blocked nothing, and reacted to nothing
		g.latency(r009).Add(max(x.upFalse.from.Sub(p.b.ev.Time), 0))
	}
	p.fired = true
}

func (p *blocking) write(w *coWrite) {
	if ok, _ := blockedAs(w, p.b.text); p.fired && p.cand == nil && !ok {
		p.cand = w
	}
}

func (p *blocking) confirm(g *coJudging, x *component) {
	w := p.cand
	_, read := blockedAs(w, p.b.text)
	x.t(r009).FailIn(fmt.Sprintf("%s: at %s Upgradeable %s", p.what(g, x), g.off(w.ev.Time), read), w.ev.Time, w.ev.Time, w.ev)
	x.co009 = nil
}

// close ends the blocker at t, where the next one is written.
func (p *blocking) close(g *coJudging, x *component, t time.Time) {
	if p.fired && p.cand != nil && p.cand.ev.Time.Before(t) {
		p.confirm(g, x)
	}
	x.co009 = nil
}

func (p *blocking) finish(g *coJudging, x *component, end time.Time) {
	if !p.fired {
		if g.postpone(x, p.b.ev.Time, &p.due) || end.Before(p.due) {
			x.t(r009).Skip(p.what(g, x) + ": the run ended before Upgradeable was due")
			x.co009 = nil
			return
		}
		p.fire(g, x)
	}
	if x.co009 == p && p.cand != nil {
		p.confirm(g, x)
	}
	x.co009 = nil
}

// upgradeableFalse tells whether the status after w reports
// Upgradeable=False.
func upgradeableFalse(w *coWrite) bool {
	u, ok := w.conds[condUpgradeable]
	return ok && u.Status == statusFalse
}

// blockedAs tells whether the status after w is as the blocker text asks
// ("" for none): Upgradeable False, or not False; and, if not, what it
// read.
func blockedAs(w *coWrite, text string) (bool, string) {
	var u timeline.Condition
	ok := false
	if w != nil {
		u, ok = w.conds[condUpgradeable]
	}
	switch {
	case text == "" && (!ok || u.Status != statusFalse):
		return true, ""
	case text == "":
		return false, fmt.Sprintf("was still False (%q) with nothing to fix", u.Message)
	case !ok:
		return false, "was not reported: it must be False"
	case u.Status != statusFalse:
		return false, fmt.Sprintf("was %s, not False", u.Status)
	}
	return true, ""
}
