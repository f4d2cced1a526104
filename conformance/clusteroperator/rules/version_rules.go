package rules

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The contract rules on versions[name=operator] (001 §Version reporting
// during an upgrade; honored by components 5) and the write that ends a
// rollout (001 §Status). A component is ClusterOperator X with the
// operands and pods of namespace X; a rollout to B runs from the first
// operand spec asking B until it is complete (story.go).

// CO-002: versions[name=operator] moves to B only once no pod of the
// component runs another version and every operand spec asks B ("As soon
// as you can guarantee you are not and will not run any old versions of
// your operands"), and, for an installation (no version before), once
// the first rollout is rolled out (honored by components 5: "reports when
// it has rolled out"; a DaemonSet on more than half of its nodes, as CO-001
// reads honored by components 1). Pods gone within Tolerance after the
// write count as gone at it, so a write is judged once Tolerance has
// passed. A component with no operand on the timeline is not judged.
func (c Config) versionAfterRollout(j *judge.Judging) judge.Verdict { return c.verdict(r002)(j) }

// versionMove is an operator's write that moved versions[operator], with
// the operands' world just before it and as it stood before Tolerance
// after it.
type versionMove struct {
	w            *coWrite
	before, late world
}

// settleVersionMoves judges the moves Tolerance after which has passed by
// now (all of them at the end). A move before any operand spec of the
// component is on the timeline is judged once one is (undecided): until
// then it may be one of a recording with no operands, which is not
// judged.
func (g *coJudging) settleVersionMoves(x *component, now time.Time, end bool) {
	for len(x.co002) > 0 {
		m := x.co002[0]
		if !end && !now.After(m.w.ev.Time.Add(g.c.Tolerance)) {
			return
		}
		x.co002 = x.co002[1:]
		p := g.versionMoved(x, m)
		if !x.hasOperands() {
			x.undecided = append(x.undecided, p)
			continue
		}
		x.t(r002).Judged++
		if p != nil {
			x.t(r002).FailIn(p.Message, p.From, p.To, p.Evidence...)
		}
	}
	if end {
		for range x.undecided {
			x.t(r002).Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline", x.name, x.name))
		}
		x.undecided = nil
	}
}

// decide judges the moves of versions made before x's first operand spec
// was on the timeline.
func (g *coJudging) decide(x *component) {
	for _, p := range x.undecided {
		x.t(r002).Judged++
		if p != nil {
			x.t(r002).FailIn(p.Message, p.From, p.To, p.Evidence...)
		}
	}
	x.undecided = nil
}

// versionMoved is what CO-002 finds wrong with a move of versions, nil
// if nothing.
func (g *coJudging) versionMoved(x *component, m *versionMove) *judge.Problem {
	w, b := m.w, m.w.version
	before, late := m.before, m.late
	var says []string
	evidence := []timeline.Event{w.ev}
	for _, name := range intersect(before.oldPods(b), late.oldPods(b)) {
		says = append(says, fmt.Sprintf("pod %s runs %s", name, orNone(before.pods[name].version)))
		evidence = append(evidence, before.pods[name].ev)
	}
	for _, name := range intersect(before.behind(b), late.behind(b)) {
		o := before.operands[name]
		says = append(says, fmt.Sprintf("%s %s asks %s", o.kind, name, orNone(o.version)))
		evidence = append(evidence, o.ev)
	}
	if len(says) == 0 && w.hadVersion == "" && !before.rolledOut(b) && !late.rolledOut(b) {
		lag, evs := before.lagging(b)
		says, evidence = append(says, lag), append(evidence, evs...)
	}
	if len(says) == 0 {
		return nil
	}
	what := "changed versions[operator] from " + w.hadVersion + " to " + b
	if w.hadVersion == "" {
		what = "reported versions[operator] " + b + " at installation"
	}
	return &judge.Problem{Message: fmt.Sprintf("ClusterOperator/%s %s at %s while %s: not rolled out", x.name, what, g.off(w.ev.Time), strings.Join(says, ", ")),
		Evidence: evidence}
}

// intersect is what sorted a and b share, in order.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		for _, t := range b {
			if s == t {
				out = append(out, s)
			}
		}
	}
	return out
}

// CO-003: once a rollout to B is complete, versions[name=operator] reads B
// within the reaction bound (+Tolerance) and stays B while no new rollout
// begins (001 §Version reporting during an upgrade: "As soon as you can
// guarantee ... you can update the operator version"; honored by components 5:
// "A component reports when it has rolled out the new version"; decision 001,
// conformance/clusteroperator/README.md: the version may be reported within
// the reaction bound of completion). Not judged when the run ends, or a new
// rollout begins, before it is due, nor when the operator was down before it
// was due. The verdict measures each reaction, from completion to the write
// that reported B.
func (c Config) versionReported(j *judge.Judging) judge.Verdict { return c.verdict(r003)(j) }

// completion is CO-003 over the last rollout complete, until the next
// begins.
type completion struct {
	r     *rollout
	done  timeline.Event
	due   time.Time
	fired bool
}

// completed starts CO-003 and CO-006 on x's rollout r, complete at s.
func (g *coJudging) completed(x *component, r *rollout, s step) {
	x.co003 = &completion{r: r, done: s.ev, due: s.ev.Time.Add(g.c.slack())}
}

func (p *completion) what(g *coJudging, x *component) string {
	return fmt.Sprintf("ClusterOperator/%s: the rollout to %s complete at %s", x.name, p.r.to, g.off(p.done.Time))
}

func (p *completion) tick(g *coJudging, x *component, now time.Time) {
	if !p.fired && now.After(p.due) && !g.postpone(x, p.done.Time, &p.due) && now.After(p.due) {
		p.fire(g, x)
	}
}

func (p *completion) fire(g *coJudging, x *component) {
	t := x.t(r003)
	if g.procs.DownDuring(x.operator(), p.done.Time, p.due) {
		t.Skip(p.what(g, x) + ": its operator was down before versions[operator] was due")
		x.co003 = nil
		return
	}
	t.Judged++
	if st := x.st; st == nil || st.version != p.r.to {
		ev := []timeline.Event{p.done}
		read := "no version"
		if st != nil {
			ev, read = append(ev, st.ev), orNone(st.version)
		}
		t.FailIn(fmt.Sprintf("%s: versions[operator] read %s at %s (%s after), not %s", p.what(g, x), read, g.off(p.due), p.due.Sub(p.done.Time), p.r.to), p.done.Time, p.due, ev...)
		x.co003 = nil
		return
	}
	g.latency(r003).Add(max(x.ver.from.Sub(p.done.Time), 0))
	p.fired = true
}

func (p *completion) write(g *coJudging, x *component, w *coWrite) {
	if p.fired && w.version != p.r.to {
		x.t(r003).FailIn(fmt.Sprintf("%s: versions[operator] went from %s to %s at %s with no new rollout begun", p.what(g, x), p.r.to, orNone(w.version), g.off(w.ev.Time)),
			w.ev.Time, w.ev.Time, w.ev)
		x.co003 = nil
	}
}

// nextBegun ends CO-003 on the last rollout complete: a new one begins.
func (p *completion) nextBegun(g *coJudging, x *component) {
	if !p.fired {
		x.t(r003).Skip(p.what(g, x) + ": a new rollout began before versions[operator] was due")
	}
	x.co003 = nil
}

func (p *completion) finish(g *coJudging, x *component, end time.Time) {
	if !p.fired {
		if g.postpone(x, p.done.Time, &p.due) || end.Before(p.due) {
			x.t(r003).Skip(p.what(g, x) + ": the run ended before versions[operator] was due")
			x.co003 = nil
			return
		}
		p.fire(g, x)
	}
	x.co003 = nil
}

// atRest tells whether ch brings Progressing to rest: not True after it,
// and either True before or added, or its lastTransitionTime stamped anew
// (001 §Version reporting during an upgrade: "if it either never set
// Progressing=true or sets Progressing=false at upgrade complete it MUST
// set lastTransitionTime on Progressing to the current time").
func atRest(ch timeline.ConditionChange) bool {
	a, b := ch.After, ch.Before
	return ch.Type == condProgressing && a != nil && a.Status != statusTrue &&
		(b == nil || b.Status == statusTrue || !a.LastTransitionTime.Equal(b.LastTransitionTime))
}

func restWrite(e timeline.Event) bool {
	for _, ch := range e.Conditions {
		if atRest(ch) {
			return true
		}
	}
	return false
}

// CO-006: the status is atomic (001 §Status: "all the fields in the
// .status are only valid together and do not partially represent the
// status of the operator"). The write that completes a rollout to B, the
// operator's first after the rollout is complete that brings Progressing
// to rest, carries versions[name=operator]=B; and no write bringing
// Progressing to rest names a rollout's version in its message while
// versions[name=operator] is another (a rollout begun by Tolerance after
// the write). A status split in two updates, the conditions of "done"
// then the versions, fails both. A rollout after which Progressing never
// comes to rest is not judged ("The operator does not have to stop
// reporting Progressing").
func (c Config) atomicCompletion(j *judge.Judging) judge.Verdict { return c.verdict(r006)(j) }

// restAfter is CO-006 awaiting the write that brings Progressing to rest
// after a rollout complete.
type restAfter struct {
	r   *rollout
	end timeline.Event
}

func (p *restAfter) what(g *coJudging, x *component) string {
	return fmt.Sprintf("ClusterOperator/%s: the rollout to %s complete at %s", x.name, p.r.to, g.off(p.end.Time))
}

// restAwaited starts CO-006 on x's rollout r, complete at s: the write at
// rest may have come up to Tolerance before.
func (g *coJudging) restAwaited(x *component, r *rollout, s step) {
	p := &restAfter{r: r, end: s.ev}
	x.co006 = p
	for _, w := range x.recent {
		if w.mine() && w.pos > r.beginPos && !w.ev.Time.Before(s.ev.Time.Add(-g.c.Tolerance)) && restWrite(w.ev) {
			p.rested(g, x, w)
			return
		}
	}
}

// rested judges the write that brought Progressing to rest after p's
// rollout.
func (p *restAfter) rested(g *coJudging, x *component, w *coWrite) {
	t := x.t(r006)
	t.Judged++
	if w.version != p.r.to {
		w.split = true
		t.FailIn(fmt.Sprintf("%s: the write that brought Progressing to rest at %s carries versions[operator] %s, not %s: the status is split",
			p.what(g, x), g.off(w.ev.Time), orNone(w.version), p.r.to), p.end.Time, w.ev.Time, w.ev)
	}
	x.co006 = nil
}

// noRest ends CO-006 awaiting a write at rest: a new rollout begins.
func (g *coJudging) noRest(x *component) {
	if p := x.co006; p != nil {
		x.t(r006).Skip(p.what(g, x) + ": Progressing did not come to rest after it")
		x.co006 = nil
	}
}

// atRestWrite is an operator's write at rest whose message does not name
// the version it reports: judged once rollouts begun by Tolerance after
// it are known.
type atRestWrite struct{ w *coWrite }

// restWrite notes an operator's write for CO-006.
func (g *coJudging) restWrite(x *component, w *coWrite) {
	if !restWrite(w.ev) {
		return
	}
	if p := x.co006; p != nil {
		p.rested(g, x, w)
	}
	if msg := w.conds[condProgressing].Message; w.version == "" || !mentions(msg, w.version) {
		x.co006b = append(x.co006b, &atRestWrite{w: w})
	}
}

// settleRests judges the writes at rest Tolerance after which has passed
// by now (all of them at the end).
func (g *coJudging) settleRests(x *component, now time.Time, end bool) {
	for len(x.co006b) > 0 {
		w := x.co006b[0].w
		if !end && !now.After(w.ev.Time.Add(g.c.Tolerance)) {
			return
		}
		x.co006b = x.co006b[1:]
		if w.split {
			continue
		}
		msg := w.conds[condProgressing].Message
		for v := range x.targets {
			if v != w.version && mentions(msg, v) {
				x.t(r006b).FailIn(fmt.Sprintf("ClusterOperator/%s at %s: Progressing at rest says %q while versions[operator] is %s: the status is split",
					x.name, g.off(w.ev.Time), msg, orNone(w.version)), w.ev.Time, w.ev.Time, w.ev)
				break
			}
		}
	}
}

// CO-007: a write that moves versions[name=operator], completing a
// rollout, with Progressing not True after it, sets Progressing's
// lastTransitionTime to its own time (001 §Version reporting during an
// upgrade: "it MUST set lastTransitionTime on Progressing to the current
// time"), to the second the API server keeps (and Tolerance). The first
// versions, an installation's completion, are judged alike: "This allows
// administrators to know when the last change to the operator was".
func (c Config) stampAtCompletion(j *judge.Judging) judge.Verdict { return c.verdict(r007)(j) }

// stamped judges CO-007 on an operator's write that moved versions.
func (g *coJudging) stamped(x *component, w *coWrite) {
	t := x.t(r007)
	t.Judged++
	p, ok := w.conds[condProgressing]
	what := fmt.Sprintf("ClusterOperator/%s moved versions[operator] to %s at %s", x.name, w.version, g.off(w.ev.Time))
	switch {
	case !ok:
		t.FailIn(what+" with no Progressing condition: its lastTransitionTime must be set to the current time", w.ev.Time, w.ev.Time, w.ev)
	case p.Status != statusTrue && !g.c.atWrite(p.LastTransitionTime, w.ev.Time):
		t.FailIn(fmt.Sprintf("%s with Progressing %s last transitioned at %s: it must be set to the current time", what, p.Status, g.instant(p.LastTransitionTime)),
			w.ev.Time, w.ev.Time, w.ev)
	}
}

// mentions tells whether msg names version v as a word: not inside a
// longer version ("4.0.1" is not in "4.0.10"), a "v" before it allowed
// ("Moving to v1.0.1", honored by components 3).
func mentions(msg, v string) bool {
	if v == "" {
		return false
	}
	for i := 0; ; {
		k := strings.Index(msg[i:], v)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(v)
		before, _ := utf8.DecodeLastRuneInString(msg[:start])
		if before == 'v' || before == 'V' {
			before, _ = utf8.DecodeLastRuneInString(msg[:start-1])
		}
		after, size := utf8.DecodeRuneInString(msg[end:])
		next, _ := utf8.DecodeRuneInString(msg[min(end+size, len(msg)):])
		versionGoesOn := (after == '.' || after == '-') && (unicode.IsLetter(next) || unicode.IsDigit(next))
		if !word(before) && !word(after) && !versionGoesOn {
			return true
		}
		i = start + 1
	}
}

// word tells whether r goes on a word or version (utf8.RuneError: the
// message's edge).
func word(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
