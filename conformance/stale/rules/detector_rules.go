package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
)

// STALE-001: every challenge comes at least ChallengeAfter after the
// stillness began, as the challenging detector could date it (life.go).
func (c Config) notEarly(j *judge.Judging) judge.Verdict {
	off := j.Offset
	fs := factsOf(j)
	var f finding
	for _, h := range fs.histories {
		var last *fact
		for k, x := range h.facts {
			switch x.kind {
			case move:
				last = &h.facts[k]
			case challenge:
				f.judged++
				if last == nil {
					continue
				}
				since := fs.detector.stillSince(fs.detector.at(x.at()), *last, h.facts[:k])
				if !x.at().Before(since.Add(c.ChallengeAfter - c.Tolerance)) {
					continue
				}
				what := "its conditions moved at " + off(last.at())
				if !since.Equal(last.at()) {
					what = fmt.Sprintf("the latest lastTransitionTime, %s, of conditions it had not seen before %s", off(since), off(last.at()))
				}
				f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s, %s after %s (threshold %s)",
					h.name, off(x.at()), x.at().Sub(since), what, c.ChallengeAfter), *last, x)
			}
		}
	}
	return f.verdict("no challenge in this run")
}

// STALE-002: once still for ChallengeAfter, a ClusterOperator is challenged
// then, or when the detector is back (life.go), within the reaction bound
// (a detector that rechecks on a resync). Only a challenge or a mark
// settles what is owed; other detector writes do not. The measure is how
// long after its deadline each challenge came.
func (c Config) due(j *judge.Judging) judge.Verdict {
	off := j.Offset
	fs, end := factsOf(j), j.End
	var f finding
	var late judge.Latencies
	for _, h := range fs.histories {
		var last *fact // the movement the detector owes a challenge for
		var due time.Time
		// overdue fails the owed challenge if t is past its deadline.
		overdue := func(t time.Time, what string, ev ...fact) {
			if last == nil || !t.After(due.Add(c.AnswerBudget+c.Tolerance)) {
				return
			}
			when := off(due)
			if !due.Equal(last.at().Add(c.ChallengeAfter)) {
				when += " (when the detector was back)"
			}
			f.judged++
			late.Add(t.Sub(due))
			f.failUntil(fmt.Sprintf("ClusterOperator/%s was still from %s and due a challenge at %s, within the %s reaction bound; %s",
				h.name, off(last.at()), when, c.AnswerBudget, what), t, append([]fact{*last}, ev...)...)
			last = nil
		}
		for k, x := range h.facts {
			switch x.kind {
			case move:
				overdue(x.at(), "its conditions moved again at "+off(x.at())+" without one", x)
				last = nil
				if d, ok := c.challengeDue(fs.detector, x); ok {
					last, due = &h.facts[k], d
				}
			case challenge, mark:
				overdue(x.at(), "the detector's next challenge came at "+off(x.at()), x)
				if last != nil {
					f.judged++
					late.Add(max(0, x.at().Sub(due)))
				}
				last = nil
			}
		}
		overdue(end, "nothing came by the end of the run at "+off(end))
	}
	return withMeasure(f.verdict("no ClusterOperator was still long enough"), &late, challengeLateness, c.AnswerBudget)
}

// challengeDue is when the stillness that began with move m is owed a
// challenge: ChallengeAfter later if the detector is up throughout;
// otherwise when it is back, ChallengeAfter after the conditions' latest
// transition for a new process (at once if that is past), ChallengeAfter
// after its return for a reconnected one. ok is false when the detector is
// not up long enough again.
func (c Config) challengeDue(l life, m fact) (time.Time, bool) {
	ltt := latestTransition(m)
	return l.owed(m.at(), c.ChallengeAfter, func(s upSpan) time.Time {
		if s.fresh && ltt.Add(c.ChallengeAfter).After(s.from) {
			return ltt.Add(c.ChallengeAfter)
		}
		if s.fresh {
			return s.from
		}
		return s.from.Add(c.ChallengeAfter)
	})
}

// STALE-003: a challenge prefixes every watched message, in one write, and
// touches nothing else.
func (c Config) challengeText(j *judge.Judging) judge.Verdict {
	off := j.Offset
	hs := factsOf(j).histories
	var f finding
	for _, h := range hs {
		for _, x := range h.facts {
			if x.kind != challenge {
				continue
			}
			f.judged++
			if msg := challengeProblem(x, off); msg != "" {
				f.fail(fmt.Sprintf("ClusterOperator/%s %s", h.name, msg), x)
			}
		}
	}
	return f.verdict("no challenge in this run")
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
func (c Config) marked(j *judge.Judging) judge.Verdict {
	off := j.Offset
	fs, end := factsOf(j), j.End
	var f finding
	var late judge.Latencies
	slack := c.AnswerBudget + c.Tolerance
	for _, h := range fs.histories {
		for i, x := range h.facts {
			if x.kind != challenge {
				continue
			}
			due := x.at().Add(c.UnknownAfter)
			latest, back := fs.detector.owed(x.at(), c.UnknownAfter, func(s upSpan) time.Time { return s.from.Add(c.UnknownAfter) })
			want := fmt.Sprintf("at %s (or within the %s reaction bound)", off(due), c.AnswerBudget)
			if back && !latest.Equal(due) {
				want = fmt.Sprintf("between %s and %s and the %s reaction bound (the detector was down after the challenge)", off(due), off(latest), c.AnswerBudget)
			}
			next := nextOf(h.facts[i+1:], move, mark)
			if next != nil && next.kind == move && (!back || !next.at().After(latest.Add(slack))) {
				continue // answered: nothing owed
			}
			if next == nil || next.kind == move {
				if back && end.After(latest.Add(slack)) {
					f.judged++
					late.Add(end.Sub(latest))
					f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s and not answered, but not set Unknown %s", h.name, off(x.at()), want), end, x)
				}
				continue
			}
			f.judged++
			if back {
				late.Add(max(0, next.at().Sub(latest)))
			}
			if next.at().Before(due.Add(-c.Tolerance)) || (back && next.at().After(latest.Add(slack))) {
				f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was set Unknown at %s, want it %s", h.name, off(x.at()), off(next.at()), want), x, *next)
				continue
			}
			if msg := markProblem(c, x, *next, off); msg != "" {
				f.fail(fmt.Sprintf("ClusterOperator/%s %s", h.name, msg), x, *next)
			}
		}
	}
	return withMeasure(f.verdict("no challenge went unanswered in this run"), &late, markLateness, c.AnswerBudget)
}

// markProblem describes the first thing wrong with the mark that follows
// challenge x, "" if none.
func markProblem(c Config, x, mk fact, off func(time.Time) string) string {
	for _, t := range conditionTypes(x.before) {
		b, a := x.before[t], mk.after[t]
		want := staleMessage(c.Stated(), b.Status, b.Message)
		// The seed changes status and message only and names no reason:
		// the reason is the detector's (kept, or one of its own as
		// upstream's deadman gave, UPSTREAM.md).
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
func (c Config) markJustified(j *judge.Judging) judge.Verdict {
	off := j.Offset
	hs := factsOf(j).histories
	var f finding
	for _, h := range hs {
		var ch, moved *fact
		for _, x := range h.facts {
			switch x.kind {
			case challenge:
				ch, moved = &x, nil
			case move:
				moved = &x
			case mark:
				f.judged++
				switch {
				case ch == nil:
					f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s without a challenge", h.name, off(x.at())), x)
				case moved != nil:
					f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s although its conditions moved at %s after the challenge at %s",
						h.name, off(x.at()), off(moved.at()), off(ch.at())), *ch, *moved, x)
				case x.at().Before(ch.at().Add(c.UnknownAfter - c.Tolerance)):
					f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s, only %s after the challenge", h.name, off(x.at()), x.at().Sub(ch.at())), *ch, x)
				}
				ch = nil
			}
		}
	}
	return f.verdict("nothing was set Unknown in this run")
}

// STALE-006: at most two detector writes per ClusterOperator between movements.
func (c Config) writesPerCycle(j *judge.Judging) judge.Verdict {
	off := j.Offset
	hs := factsOf(j).histories
	var f finding
	for _, h := range hs {
		var cycle []fact
		flush := func() {
			if len(cycle) > 0 {
				f.judged++
			}
			if len(cycle) > 2 {
				f.fail(fmt.Sprintf("ClusterOperator/%s: %d detector writes between %s and %s", h.name, len(cycle), off(cycle[0].at()), off(cycle[len(cycle)-1].at())), cycle...)
			}
			cycle = nil
		}
		for _, x := range h.facts {
			if x.kind == move {
				flush()
				continue
			}
			cycle = append(cycle, x)
		}
		flush()
	}
	return f.verdict("the detector wrote nothing in this run")
}

func nextOf(facts []fact, kinds ...kind) *fact {
	for i := range facts {
		for _, k := range kinds {
			if facts[i].kind == k {
				return &facts[i]
			}
		}
	}
	return nil
}
