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
// write count as gone at it.
func (c Config) versionAfterRollout(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	for _, x := range contractOf(j).components {
		for _, w := range x.mine() {
			b := w.version
			if !w.moved || b == "" {
				continue
			}
			if !x.hasOperands() {
				g.Skip(fmt.Sprintf("ClusterOperator/%s: no operand of namespace %s on the timeline", x.name, x.name))
				continue
			}
			g.Judged++
			before, late := x.worldBefore(w.pos), x.worldLate(w.pos, w.ev.Time.Add(c.Tolerance))
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
			if len(says) > 0 {
				what := "changed versions[operator] from " + w.hadVersion + " to " + b
				if w.hadVersion == "" {
					what = "reported versions[operator] " + b + " at installation"
				}
				g.FailIn(fmt.Sprintf("ClusterOperator/%s %s at %s while %s: not rolled out", x.name, what, j.Offset(w.ev.Time), strings.Join(says, ", ")),
					time.Time{}, time.Time{}, evidence...)
			}
		}
	}
	return g.Verdict("not judged: no operator moved versions[operator] in this run")
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
func (c Config) versionReported(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	took := reactions{name: "version reported after completion"}
	k := contractOf(j)
	for _, x := range k.components {
		for _, r := range x.rollouts {
			if r.end == nil {
				continue
			}
			done := r.end.ev
			due := done.Time.Add(c.slack())
			what := fmt.Sprintf("ClusterOperator/%s: the rollout to %s complete at %s", x.name, r.to, j.Offset(done.Time))
			nx := x.next(r)
			switch {
			case nx != nil && !nx.begin.Time.After(due):
				g.Skip(what + ": a new rollout began before versions[operator] was due")
				continue
			case j.End.Before(due):
				g.Skip(what + ": the run ended before versions[operator] was due")
				continue
			case k.procs.DownDuring(x.operator(), done.Time, due):
				g.Skip(what + ": its operator was down before versions[operator] was due")
				continue
			}
			g.Judged++
			st := x.statusAt(due)
			if st == nil || st.version != r.to {
				ev := []timeline.Event{done}
				read := "no version"
				if st != nil {
					ev, read = append(ev, st.ev), orNone(st.version)
				}
				g.FailIn(fmt.Sprintf("%s: versions[operator] read %s at %s (%s after), not %s", what, read, j.Offset(due), c.slack(), r.to), done.Time, due, ev...)
				continue
			}
			took.add(x.since(st, func(w *coWrite) bool { return w.version == r.to }).ev.Time.Sub(done.Time))
			for _, w := range x.mine() {
				if w.pos <= st.pos || nx != nil && w.pos > nx.beginPos {
					continue
				}
				if w.version != r.to {
					g.FailIn(fmt.Sprintf("%s: versions[operator] went from %s to %s at %s with no new rollout begun", what, r.to, orNone(w.version), j.Offset(w.ev.Time)),
						w.ev.Time, w.ev.Time, w.ev)
					break
				}
			}
		}
	}
	v := g.Verdict("not judged: no rollout completed in this run")
	v.Measures = took.measures(c.slack())
	return v
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
// versions[name=operator] is another. A status split in two updates, the
// conditions of "done" then the versions, fails both. A rollout after
// which Progressing never comes to rest is not judged ("The operator does
// not have to stop reporting Progressing").
func (c Config) atomicCompletion(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	for _, x := range contractOf(j).components {
		mine := x.mine()
		flagged := map[int]bool{}
		for _, r := range x.rollouts {
			if r.end == nil {
				continue
			}
			nx := x.next(r)
			var rest *coWrite
			for i, w := range mine {
				if w.pos > r.beginPos && !w.ev.Time.Before(r.end.ev.Time.Add(-c.Tolerance)) &&
					(nx == nil || w.pos < nx.beginPos) && restWrite(w.ev) {
					rest = &mine[i]
					break
				}
			}
			what := fmt.Sprintf("ClusterOperator/%s: the rollout to %s complete at %s", x.name, r.to, j.Offset(r.end.ev.Time))
			if rest == nil {
				g.Skip(what + ": Progressing did not come to rest after it")
				continue
			}
			g.Judged++
			if rest.version != r.to {
				flagged[rest.pos] = true
				g.FailIn(fmt.Sprintf("%s: the write that brought Progressing to rest at %s carries versions[operator] %s, not %s: the status is split",
					what, j.Offset(rest.ev.Time), orNone(rest.version), r.to), r.end.ev.Time, rest.ev.Time, rest.ev)
			}
		}
		for _, w := range mine {
			if flagged[w.pos] || !restWrite(w.ev) {
				continue
			}
			msg := w.conds[condProgressing].Message
			for _, r := range x.rollouts {
				if r.to != w.version && mentions(msg, r.to) && (w.version == "" || !mentions(msg, w.version)) {
					g.FailIn(fmt.Sprintf("ClusterOperator/%s at %s: Progressing at rest says %q while versions[operator] is %s: the status is split",
						x.name, j.Offset(w.ev.Time), msg, orNone(w.version)), w.ev.Time, w.ev.Time, w.ev)
					break
				}
			}
		}
	}
	return g.Verdict("not judged: no rollout completed in this run")
}

// CO-007: a write that moves versions[name=operator], completing a
// rollout, with Progressing not True after it, sets Progressing's
// lastTransitionTime to its own time (001 §Version reporting during an
// upgrade: "it MUST set lastTransitionTime on Progressing to the current
// time"), to the second the API server keeps (and Tolerance). The first
// versions, an installation's completion, are judged alike: "This allows
// administrators to know when the last change to the operator was".
func (c Config) stampAtCompletion(j *judge.Judging) judge.Verdict {
	var g judge.Findings
	for _, x := range contractOf(j).components {
		for _, w := range x.mine() {
			if !w.moved || w.version == "" {
				continue
			}
			g.Judged++
			p, ok := w.conds[condProgressing]
			what := fmt.Sprintf("ClusterOperator/%s moved versions[operator] to %s at %s", x.name, w.version, j.Offset(w.ev.Time))
			switch {
			case !ok:
				g.FailIn(what+" with no Progressing condition: its lastTransitionTime must be set to the current time", w.ev.Time, w.ev.Time, w.ev)
			case p.Status != statusTrue && !c.atWrite(p.LastTransitionTime, w.ev.Time):
				g.FailIn(fmt.Sprintf("%s with Progressing %s last transitioned at %s: it must be set to the current time", what, p.Status, instant(j, p.LastTransitionTime)),
					w.ev.Time, w.ev.Time, w.ev)
			}
		}
	}
	return g.Verdict("not judged: no operator moved versions[operator] in this run")
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
