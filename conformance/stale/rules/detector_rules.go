package rules

import (
	"fmt"
	"time"
)

// The detector's rules, STALE-001 to STALE-006, read one fact of a
// ClusterOperator at a time (judging.go).

// STALE-001: every challenge comes at least ChallengeAfter after the
// stillness began, as the challenging detector could date it (life.go):
// from the movement's write, if the incarnation up then had seen the
// object before it and is the one that challenges; otherwise from the
// conditions' latest transition time.
func (j *objJudge) stillness(x fact) {
	g, c := j.g, j.g.cfg
	inc := -1
	if s := g.detector.at(x.at()); s >= 0 {
		inc = g.detector.incarnation(s)
	}
	switch x.kind {
	case move:
		y := x
		j.last1, j.inc1 = &y, inc
		j.dated1 = inc >= 0 && j.seenInc == inc && j.seenAt.Before(x.at())
	case challenge:
		j.f[r001].judged++
		if last := j.last1; last != nil {
			since := latestTransition(*last)
			if inc >= 0 && inc == j.inc1 && j.dated1 {
				since = last.at()
			}
			if x.at().Before(since.Add(c.ChallengeAfter - c.Tolerance)) {
				what := "its conditions moved at " + g.off(last.at())
				if !since.Equal(last.at()) {
					what = fmt.Sprintf("the latest lastTransitionTime, %s, of conditions it had not seen before %s", g.off(since), g.off(last.at()))
				}
				j.f[r001].fail(fmt.Sprintf("ClusterOperator/%s challenged at %s, %s after %s (threshold %s)",
					j.name, g.off(x.at()), x.at().Sub(since), what, c.ChallengeAfter), *last, x)
			}
		}
	}
	if inc >= 0 && j.seenInc != inc {
		j.seenInc, j.seenAt = inc, x.at()
	}
}

// STALE-002: once still for ChallengeAfter, a ClusterOperator is challenged
// then, or when the detector is back (life.go), within the reaction bound
// (a detector that rechecks on a resync). Only a challenge or a mark
// settles what is owed; other detector writes do not. The measure is how
// long after its deadline each challenge came.
func (j *objJudge) due(x fact) {
	g := j.g
	j.resolve2()
	switch x.kind {
	case move:
		j.overdue(x.at(), "its conditions moved again at "+g.off(x.at())+" without one", x)
		y := x
		j.last2 = &y
	case challenge, mark:
		j.overdue(x.at(), "the detector's next challenge came at "+g.off(x.at()), x)
		if j.last2 != nil {
			if due, ok, known := j.challengeDue(*j.last2); !known {
				j.unsure2 = append(j.unsure2, unsure{*j.last2, x.at()}) // owed after x, if at all
			} else if ok {
				j.f[r002].judged++
				g.late2.Add(max(0, x.at().Sub(due)))
			}
		}
		j.last2 = nil
	}
}

// unsure is a challenge (at) that came before the deadline of a movement
// (m) was known: the detector's life after it settles the deadline.
type unsure struct {
	m  fact
	at time.Time
}

// resolve2 counts the challenges that came before the deadline of a
// movement was known (it may move to the detector's return): once the
// detector's life settles it, they were on time if one was owed at all,
// and came as late after it as they did.
func (j *objJudge) resolve2() {
	kept := j.unsure2[:0]
	for _, u := range j.unsure2 {
		switch due, ok, known := j.challengeDue(u.m); {
		case !known:
			kept = append(kept, u)
		case ok:
			j.f[r002].judged++
			j.g.late2.Add(max(0, u.at.Sub(due)))
		}
	}
	j.unsure2 = kept
}

// dueAtEnd judges the challenge owed at the end.
func (j *objJudge) dueAtEnd(end time.Time) {
	j.resolve2()
	j.overdue(end, "nothing came by the end of the run at "+j.g.off(end))
}

// overdue fails the challenge STALE-002 owes if t is past its deadline.
func (j *objJudge) overdue(t time.Time, what string, ev ...fact) {
	g, c := j.g, j.g.cfg
	if j.last2 == nil {
		return
	}
	last := *j.last2
	due, ok, known := j.challengeDue(last)
	if !known || !ok || !t.After(due.Add(c.AnswerBudget+c.Tolerance)) {
		return // an unknown deadline is after t
	}
	when := g.off(due)
	if !due.Equal(last.at().Add(c.ChallengeAfter)) {
		when += " (when the detector was back)"
	}
	j.f[r002].judged++
	g.late2.Add(t.Sub(due))
	j.f[r002].failUntil(fmt.Sprintf("ClusterOperator/%s was still from %s and due a challenge at %s, within the %s reaction bound; %s",
		j.name, g.off(last.at()), when, c.AnswerBudget, what), t, append([]fact{last}, ev...)...)
	j.last2 = nil
}

// challengeDue is when the stillness that began with move m is owed a
// challenge: ChallengeAfter later if the detector is up throughout;
// otherwise when it is back, ChallengeAfter after the conditions' latest
// transition for a new process (at once if that is past), ChallengeAfter
// after its return for a reconnected one. ok is false when the detector is
// not up long enough again; known false when what was read does not say
// yet.
func (j *objJudge) challengeDue(m fact) (due time.Time, ok, known bool) {
	g, c := j.g, j.g.cfg
	ltt := latestTransition(m)
	return g.detector.owed(m.at(), c.ChallengeAfter, c.AnswerBudget+c.Tolerance, func(s upSpan) time.Time {
		if s.fresh && ltt.Add(c.ChallengeAfter).After(s.from) {
			return ltt.Add(c.ChallengeAfter)
		}
		if s.fresh {
			return s.from
		}
		return s.from.Add(c.ChallengeAfter)
	}, g.now, g.final)
}

// STALE-003: a challenge prefixes every watched message, in one write, and
// touches nothing else.
func (j *objJudge) challengeText(x fact) {
	if x.kind != challenge {
		return
	}
	j.f[r003].judged++
	if msg := challengeProblem(x, j.g.off); msg != "" {
		j.f[r003].fail(fmt.Sprintf("ClusterOperator/%s %s", j.name, msg), x)
	}
}

// challengeProblem describes the first thing wrong with a challenge, "" if none.
func challengeProblem(x fact, off func(time.Time) string) string {
	for _, t := range conditionTypes(x.before) {
		b, a := x.before[t], x.after[t]
		want := challengePrefix + b.Message
		switch {
		case a.Message != want:
			return fmt.Sprintf("%s challenged at %s with message %q, want %q", t, off(x.at()), a.Message, want)
		// The seed changes the message; the status (the mark's to change)
		// and lastTransitionTime (which moves with the status) stay. The
		// reason is the detector's to leave or not: the seed names none.
		case a.Status != b.Status || !a.LastTransitionTime.Equal(b.LastTransitionTime):
			return fmt.Sprintf("%s: the challenge at %s changed its status or lastTransitionTime, not only the message", t, off(x.at()))
		}
	}
	return ""
}

// STALE-004: an unanswered challenge is followed UnknownAfter later, within
// the reaction bound, by one write setting every watched condition Unknown
// with the seed's text. A detector down meanwhile marks UnknownAfter after
// it is back at the latest (life.go). The measure is how long after its
// deadline each mark came.
func (j *objJudge) marked(x fact) {
	if x.kind == move || x.kind == mark {
		for _, ch := range j.pending4 {
			y := x
			j.queue4 = append(j.queue4, wait4{challenge: ch, next: &y})
		}
		j.pending4 = j.pending4[:0]
	}
	if x.kind == challenge {
		j.pending4 = append(j.pending4, x)
	}
	j.settle4(time.Time{})
}

// wait4 is a challenge and the move or mark that followed it (nil: none
// by the end).
type wait4 struct {
	challenge fact
	next      *fact
}

// markedAtEnd judges the challenges the end leaves unfollowed, and
// measures the marks never written to the end.
func (j *objJudge) markedAtEnd(end time.Time) {
	for _, ch := range j.pending4 {
		j.queue4 = append(j.queue4, wait4{challenge: ch})
	}
	j.pending4 = nil
	j.settle4(end)
	for _, due := range j.owed4 {
		j.g.late4.Add(end.Sub(due))
	}
	j.owed4 = nil
	for k, p := range j.f[r004].problems {
		if p.To.Equal(endMarker) {
			j.f[r004].problems[k].To = end
		}
	}
}

// endMarker stands for the end of the timeline in a problem's window
// until the end is known (markedAtEnd).
var endMarker = time.Unix(0, 1).UTC()

// settle4 judges the challenges at the head of queue4 whose mark the
// detector's life settles (with end set, all of them).
func (j *objJudge) settle4(end time.Time) {
	for len(j.queue4) > 0 && j.mark4(j.queue4[0], end) {
		j.queue4 = j.queue4[1:]
	}
}

// mark4 judges challenge w.challenge followed by w.next, and tells
// whether it could.
func (j *objJudge) mark4(w wait4, end time.Time) bool {
	g, c := j.g, j.g.cfg
	x, next := w.challenge, w.next
	f := &j.f[r004]
	due := x.at().Add(c.UnknownAfter)
	latest, back, known := g.detector.owed(x.at(), c.UnknownAfter, c.AnswerBudget+c.Tolerance, func(s upSpan) time.Time { return s.from.Add(c.UnknownAfter) }, g.now, g.final)
	slack := c.AnswerBudget + c.Tolerance
	switch {
	case !known && next != nil && next.kind == move:
		return true // the deadline is after the move: answered, nothing owed
	case !known:
		return false
	}
	want := fmt.Sprintf("at %s (or within the %s reaction bound)", g.off(due), c.AnswerBudget)
	if back && !latest.Equal(due) {
		want = fmt.Sprintf("between %s and %s and the %s reaction bound (the detector was down after the challenge)", g.off(due), g.off(latest), c.AnswerBudget)
	}
	if next != nil && next.kind == move && (!back || !next.at().After(latest.Add(slack))) {
		return true // answered: nothing owed
	}
	if next == nil || next.kind == move {
		// A move after the deadline: the end is past it, and past the deadline.
		if back && (next != nil || end.After(latest.Add(slack))) {
			f.judged++
			j.owed4 = append(j.owed4, latest)
			f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s and not answered, but not set Unknown %s", j.name, g.off(x.at()), want), endMarker, x)
		}
		return true
	}
	f.judged++
	if back {
		g.late4.Add(max(0, next.at().Sub(latest)))
	}
	if next.at().Before(due.Add(-c.Tolerance)) || (back && next.at().After(latest.Add(slack))) {
		f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was set Unknown at %s, want it %s", j.name, g.off(x.at()), g.off(next.at()), want), x, *next)
		return true
	}
	if msg := markProblem(c, x, *next, g.off); msg != "" {
		f.fail(fmt.Sprintf("ClusterOperator/%s %s", j.name, msg), x, *next)
	}
	return true
}

// markProblem describes the first thing wrong with the mark that follows
// challenge x, "" if none.
func markProblem(c Config, x, mk fact, off func(time.Time) string) string {
	for _, t := range conditionTypes(x.before) {
		b, a := x.before[t], mk.after[t]
		want := staleMessage(c.Stated(), b.Status, b.Message)
		// The seed changes status and message only and names no reason:
		// the reason is the detector's (kept, or one of its own as
		// upstream's deadman gave, docs/upstream.md).
		if a.Status != "Unknown" || a.Message != want {
			return fmt.Sprintf("%s set to %s %q at %s, want Unknown %q", t, a.Status, a.Message, off(mk.at()), want)
		}
		// A status that changes moves lastTransitionTime to the mark, to the
		// second as the API server keeps it.
		if lag := mk.at().Sub(a.LastTransitionTime); b.Status != "Unknown" && (lag < -c.Tolerance || lag >= time.Second+c.Tolerance) {
			return fmt.Sprintf("%s lastTransitionTime is %s after the mark at %s, want the mark's time (to the second): its status changed", t, off(a.LastTransitionTime), off(mk.at()))
		}
	}
	return ""
}

// STALE-005: a condition set Unknown follows an unanswered challenge by the
// full threshold with no movement between.
func (j *objJudge) markJustified(x fact) {
	g, c := j.g, j.g.cfg
	switch x.kind {
	case challenge:
		y := x
		j.ch5, j.moved5 = &y, nil
	case move:
		y := x
		j.moved5 = &y
	case mark:
		f := &j.f[r005]
		f.judged++
		switch {
		case j.ch5 == nil:
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s without a challenge", j.name, g.off(x.at())), x)
		case j.moved5 != nil:
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s although its conditions moved at %s after the challenge at %s",
				j.name, g.off(x.at()), g.off(j.moved5.at()), g.off(j.ch5.at())), *j.ch5, *j.moved5, x)
		case x.at().Before(j.ch5.at().Add(c.UnknownAfter - c.Tolerance)):
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s, only %s after the challenge", j.name, g.off(x.at()), x.at().Sub(j.ch5.at())), *j.ch5, x)
		}
		j.ch5 = nil
	}
}

// STALE-006: at most two detector writes per ClusterOperator between movements.
func (j *objJudge) writesPerCycle(x fact) {
	if x.kind == move {
		j.flush6()
		return
	}
	j.cycle6 = append(j.cycle6, x)
}

func (j *objJudge) flush6() {
	f := &j.f[r006]
	if len(j.cycle6) > 0 {
		f.judged++
	}
	if len(j.cycle6) > 2 {
		f.fail(fmt.Sprintf("ClusterOperator/%s: %d detector writes between %s and %s", j.name, len(j.cycle6),
			j.g.off(j.cycle6[0].at()), j.g.off(j.cycle6[len(j.cycle6)-1].at())), j.cycle6...)
	}
	j.cycle6 = j.cycle6[:0]
}
