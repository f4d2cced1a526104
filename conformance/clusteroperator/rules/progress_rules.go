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

// CO-001: a component does not report Available the first time until its
// first rollout, its installation, is complete: every operand at its
// version and ready, a DaemonSet on more than half of its nodes (honored
// by components 1: "or within some reasonable percentage if the
// component must be installed to all nodes"; world.rolledOut). A
// ClusterOperator created before the timeline began is not judged.
func (c Config) availableAfterInstall(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	for _, x := range contractOf(j).components {
		var first *coWrite
		for _, w := range x.mine() {
			if a, ok := w.conds[condAvailable]; ok && a.Status == statusTrue {
				first = &w
				break
			}
		}
		switch {
		case first == nil:
			continue
		case !x.created:
			g.Skip(fmt.Sprintf("ClusterOperator/%s was created before the timeline began", x.name))
			continue
		case !x.hasOperands():
			g.Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline", x.name, x.name))
			continue
		}
		g.Judged++
		r := x.rollouts[0]
		if r.end != nil && (r.end.pos < first.pos || r.end.ev.Time.Before(first.ev.Time.Add(c.Tolerance))) ||
			x.worldBefore(first.pos).rolledOut(r.to) || x.worldLate(first.pos, first.ev.Time.Add(c.Tolerance)).rolledOut(r.to) {
			continue
		}
		lag, evs := x.worldBefore(first.pos).lagging(r.to)
		g.FailIn(fmt.Sprintf("ClusterOperator/%s reported Available=True at %s before its installation, the rollout to %s begun at %s, was complete: %s",
			x.name, j.Offset(first.ev.Time), r.to, j.Offset(r.begin.Time), lag), r.begin.Time, first.ev.Time, append([]timeline.Event{first.ev}, evs...)...)
	}
	return g.Verdict("not judged: no operator reported Available=True in this run")
}

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
func (c Config) progressingDuringRollout(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	took := reactions{name: "Progressing=True naming the version after a rollout began"}
	k := contractOf(j)
	for _, x := range k.components {
		for _, r := range x.rollouts {
			due := r.begin.Time.Add(c.significant() + c.slack())
			what := fmt.Sprintf("ClusterOperator/%s: the rollout to %s begun at %s", x.name, r.to, j.Offset(r.begin.Time))
			over, ended := r.over()
			switch {
			case ended && !over.ev.Time.After(due):
				continue
			case !ended && j.End.Before(due):
				g.Skip(what + ": the run ended before Progressing was due")
				continue
			case k.procs.DownDuring(x.operator(), r.begin.Time, due):
				g.Skip(what + ": its operator was down before Progressing was due")
				continue
			}
			g.Judged++
			from := r.begin.Time.Add(-c.Tolerance)
			said, last, named := false, x.statusBefore(from), -1
			if last != nil && progressingNames(*last, r.to) {
				said, named = true, last.pos
				took.add(0)
			}
			for _, w := range x.writes {
				if !said && !w.ev.Time.Before(from) && !w.ev.Time.After(due) {
					said, last = progressingNames(w, r.to), &w
					if said {
						named = w.pos
						took.add(w.ev.Time.Sub(r.begin.Time))
					}
				}
			}
			if !said {
				evidence, read := []timeline.Event{r.begin}, "no Progressing"
				if last != nil {
					evidence = append(evidence, last.ev)
					read = progressingRead(*last)
				}
				g.FailIn(fmt.Sprintf("%s was not reported Progressing=True naming %s by %s: %s", what, r.to, j.Offset(due), read), r.begin.Time, due, evidence...)
				continue
			}
			// Then throughout the move: every write of the operator until
			// the rollout is over keeps Progressing True naming B. In real
			// time the operator may see the end up to Tolerance before the
			// timeline does (its watch and the recorder's deliver in their
			// own order): a write that close to the end is not held to it.
			for _, w := range x.mine() {
				during := !ended || w.pos < over.pos && !w.ev.Time.After(over.ev.Time.Add(-c.Tolerance))
				if w.pos > named && during && !progressingNames(w, r.to) {
					g.FailIn(fmt.Sprintf("%s: at %s, with the rollout still under way, %s no longer names %s as Progressing=True",
						what, j.Offset(w.ev.Time), progressingRead(w), r.to), w.ev.Time, w.ev.Time, w.ev)
					break
				}
			}
		}
	}
	v := g.Verdict("not judged: no rollout in this run")
	v.Measures = took.measures(c.significant() + c.slack())
	return v
}

// progressingRead says what the status after w reports of Progressing.
func progressingRead(w coWrite) string {
	if p, ok := w.conds[condProgressing]; ok {
		return fmt.Sprintf("Progressing %s %q", p.Status, p.Message)
	}
	return "no Progressing"
}

// progressingNames tells whether the status after w reports
// Progressing=True naming version v.
func progressingNames(w coWrite, v string) bool {
	p, ok := w.conds[condProgressing]
	return ok && p.Status == statusTrue && mentions(p.Message, v)
}

// statusBefore is the ClusterOperator as it stood just before t.
func (x *component) statusBefore(t time.Time) *coWrite {
	var last *coWrite
	for i := range x.writes {
		if !x.writes[i].ev.Time.Before(t) {
			break
		}
		last = &x.writes[i]
	}
	return last
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
// ended. A "should not": a Style rule.
func (c Config) noProgressAtRest(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	for _, x := range contractOf(j).components {
		var rest time.Time // when Progressing last came to rest; zero: never
		for _, w := range x.mine() {
			turned := false
			for _, ch := range w.ev.Conditions {
				if ch.Type != condProgressing {
					continue
				}
				was := ch.Before != nil && ch.Before.Status == statusTrue
				is := ch.After != nil && ch.After.Status == statusTrue
				turned = is && !was
				if was && !is {
					rest = w.ev.Time
				}
			}
			if !turned {
				continue
			}
			if !x.hasOperands() {
				// A recording of a cluster has no operands of opcert's
				// world: what a rollout is cannot be told from it.
				g.Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline", x.name, x.name))
				continue
			}
			p := w.conds[condProgressing]
			g.Judged++
			t := w.ev.Time
			if x.rollingAround(t.Add(-c.slack()), t.Add(c.slack())) || x.triedSince(rest, t.Add(c.slack())) {
				continue
			}
			since := "since the run began"
			if !rest.IsZero() {
				since = "since Progressing was at rest at " + j.Offset(rest)
			}
			g.FailIn(fmt.Sprintf("ClusterOperator/%s turned Progressing True at %s (%q) with no rollout under way and no operand spec written %s: reconciling a known state is no progress",
				x.name, j.Offset(t), p.Message, since), rest, t, w.ev)
		}
	}
	return g.Verdict("not judged: no operator turned Progressing True in this run")
}

// rollingAround tells whether a rollout of x was under way at some
// instant of [from, to].
func (x *component) rollingAround(from, to time.Time) bool {
	for _, r := range x.rollouts {
		over, ended := r.over()
		if !r.begin.Time.After(to) && (!ended || !over.ev.Time.Before(from)) {
			return true
		}
	}
	return false
}

// triedSince tells whether the operator wrote, or tried to write, an
// operand spec of x in [from, to].
func (x *component) triedSince(from, to time.Time) bool {
	for _, e := range x.attempts {
		if !e.Time.Before(from) && !e.Time.After(to) {
			return true
		}
	}
	return false
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
// progresses, completes or
// gives way to another (honored by components 2: "A component reports
// Failing when it can't accomplish its task"; 001 §Conditions: "Failing
// should be true if the operator has encountered an error that is
// preventing it or it's operand from working properly"). Progress is a
// spec write of the rollout, a pod at its version created or changing
// readiness, or a pod of another version gone. Not judged when the run
// ends, or the operator is down, before it is due.
func (c Config) failingWhenStuck(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	took := reactions{name: "Failing or Degraded True after a stall's deadline"}
	k := contractOf(j)
	for _, x := range k.components {
		for _, r := range x.rollouts {
			over, ended := r.over()
			for i, moved := range r.progress {
				// The stall runs to the next progress, or the rollout's end.
				upto, open := over, !ended
				if i+1 < len(r.progress) {
					upto, open = r.progress[i+1], false
				}
				end := upto.ev.Time
				if open {
					end = j.End
				}
				stall := moved.ev.Time.Add(c.stuck())
				due := stall.Add(c.slack())
				what := fmt.Sprintf("ClusterOperator/%s: the rollout to %s made no progress from %s", x.name, r.to, j.Offset(moved.ev.Time))
				switch {
				case !open && !end.After(due):
					continue // it progressed in time
				case open && j.End.Before(due):
					g.Skip(what + ": the run ended before Failing or Degraded was due")
					continue
				}
				switch {
				case k.procs.DownDuring(x.operator(), moved.ev.Time, due):
					g.Skip(what + ": its operator was down before Failing or Degraded was due")
					continue
				}
				g.Judged++
				st := x.statusAt(due)
				if !failing(st) {
					evidence := []timeline.Event{moved.ev}
					if st != nil {
						evidence = append(evidence, st.ev)
					}
					g.FailIn(fmt.Sprintf("%s: neither Failing nor Degraded was True by %s (%s and the reaction bound later)", what, j.Offset(due), c.stuck()), moved.ev.Time, due, evidence...)
					continue
				}
				took.add(x.since(st, failing).ev.Time.Sub(stall))
				for _, w := range x.mine() {
					if w.ev.Time.After(due) && (open || w.pos < upto.pos) && !failing(&w) {
						g.FailIn(fmt.Sprintf("%s: Failing and Degraded were left not True at %s with still no progress", what, j.Offset(w.ev.Time)), w.ev.Time, w.ev.Time, w.ev)
						break
					}
				}
			}
		}
	}
	v := g.Verdict("not judged: no rollout made no progress for " + c.stuck().String() + " in this run")
	v.Measures = took.measures(c.slack())
	return v
}

// CO-009: while the administrator's ConfigMap X-admin holds an
// upgradeBlocker, X reports Upgradeable=False, from the reaction bound
// (+Tolerance) after it was written; once it is cleared, Upgradeable is
// not False from the same slack on (honored by components 4: "A
// component reports Upgradeable as false when it wishes to prevent an
// upgrade for an admin-correctable condition"). What the message says is
// CO-025's (a "should"). The verdict measures each reaction, from the
// blocker's write to the write that reported it.
func (c Config) upgradeableBlocked(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	took := reactions{name: "Upgradeable after the administrator's blocker changed"}
	k := contractOf(j)
	for _, x := range k.components {
		for i, b := range x.blockers {
			if b.text == "" && (i == 0 || x.blockers[i-1].text == "") {
				continue // nothing was blocked: nothing to clear
			}
			due := b.ev.Time.Add(c.slack())
			upto, open := j.End, true
			if i+1 < len(x.blockers) {
				upto, open = x.blockers[i+1].ev.Time, false
			}
			what := fmt.Sprintf("ClusterOperator/%s: the blocker %q written at %s", x.name, b.text, j.Offset(b.ev.Time))
			if b.text == "" {
				what = fmt.Sprintf("ClusterOperator/%s: the blocker cleared at %s", x.name, j.Offset(b.ev.Time))
			}
			switch {
			case !open && !upto.After(due):
				continue
			case j.End.Before(due):
				g.Skip(what + ": the run ended before Upgradeable was due")
				continue
			case k.procs.DownDuring(x.operator(), b.ev.Time, due):
				g.Skip(what + ": its operator was down before Upgradeable was due")
				continue
			}
			g.Judged++
			st := x.statusAt(due)
			if ok, read := blockedAs(st, b.text); !ok {
				evidence := []timeline.Event{b.ev}
				if st != nil {
					evidence = append(evidence, st.ev)
				}
				g.FailIn(fmt.Sprintf("%s: at %s Upgradeable %s", what, j.Offset(due), read), b.ev.Time, due, evidence...)
				continue
			}
			if st != nil { // an operator that never wrote blocked nothing, and reacted to nothing
				took.add(x.since(st, func(w *coWrite) bool { ok, _ := blockedAs(w, b.text); return ok }).ev.Time.Sub(b.ev.Time))
			}
			for _, w := range x.mine() {
				if w.ev.Time.After(due) && (open || w.ev.Time.Before(upto)) {
					if ok, read := blockedAs(&w, b.text); !ok {
						g.FailIn(fmt.Sprintf("%s: at %s Upgradeable %s", what, j.Offset(w.ev.Time), read), w.ev.Time, w.ev.Time, w.ev)
						break
					}
				}
			}
		}
	}
	v := g.Verdict("not judged: no administrator's blocker in this run")
	v.Measures = took.measures(c.slack())
	return v
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
