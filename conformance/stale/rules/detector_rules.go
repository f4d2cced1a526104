package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/conformance"
)

// STALE-001: every challenge comes at least ChallengeAfter after the last movement.
func (c Config) notEarly(j *conformance.Judging) conformance.Verdict {
	hs := factsOf(j).histories
	var f finding
	for _, h := range hs {
		var last *fact
		for _, x := range h.facts {
			switch x.kind {
			case move:
				last = &x
			case challenge:
				f.judged++
				if last != nil && x.at().Before(last.at().Add(c.ChallengeAfter-c.Tolerance)) {
					f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s, %s after its conditions moved at %s (threshold %s)",
						h.name, off(x.at()), x.at().Sub(last.at()), off(last.at()), c.ChallengeAfter), *last, x)
				}
			}
		}
	}
	return f.verdict("no challenge in this run")
}

// STALE-002: once still for ChallengeAfter, a ClusterOperator is challenged
// then. Only a challenge or a mark settles what is owed; other detector
// writes do not.
func (c Config) due(j *conformance.Judging) conformance.Verdict {
	hs, end := factsOf(j).histories, j.End
	var f finding
	for _, h := range hs {
		var last *fact // the movement the detector owes a challenge for
		// overdue fails the owed challenge if t is past its deadline.
		overdue := func(t time.Time, what string, ev ...fact) {
			if last == nil {
				return
			}
			due := last.at().Add(c.ChallengeAfter)
			if !t.After(due.Add(c.Tolerance)) {
				return
			}
			f.judged++
			f.fail(fmt.Sprintf("ClusterOperator/%s was still from %s and due a challenge at %s; %s",
				h.name, off(last.at()), off(due), what), append([]fact{*last}, ev...)...)
			last = nil
		}
		for _, x := range h.facts {
			switch x.kind {
			case move:
				overdue(x.at(), "its conditions moved again at "+off(x.at())+" without one", x)
				last = &x
			case challenge, mark:
				overdue(x.at(), "the detector's next challenge came at "+off(x.at()), x)
				if last != nil {
					f.judged++
				}
				last = nil
			}
		}
		overdue(end, "nothing came by the end of the run at "+off(end))
	}
	return f.verdict("no ClusterOperator was still long enough")
}

// STALE-003: a challenge prefixes every watched message, in one write, and
// touches nothing else.
func (c Config) challengeText(j *conformance.Judging) conformance.Verdict {
	hs := factsOf(j).histories
	var f finding
	for _, h := range hs {
		for _, x := range h.facts {
			if x.kind != challenge {
				continue
			}
			f.judged++
			if msg := challengeProblem(x); msg != "" {
				f.fail(fmt.Sprintf("ClusterOperator/%s %s", h.name, msg), x)
			}
		}
	}
	return f.verdict("no challenge in this run")
}

// challengeProblem describes the first thing wrong with a challenge, "" if none.
func challengeProblem(x fact) string {
	for _, t := range conditionTypes(x.before) {
		b, a := x.before[t], x.after[t]
		want := challengePrefix + b.Message
		switch {
		case a.Message != want:
			return fmt.Sprintf("%s challenged at %s with message %q, want %q", t, off(x.at()), a.Message, want)
		case a.Status != b.Status || a.Reason != b.Reason || !a.LastTransitionTime.Equal(b.LastTransitionTime):
			return fmt.Sprintf("%s: the challenge at %s changed more than the message", t, off(x.at()))
		}
	}
	return ""
}

// STALE-004: an unanswered challenge is followed UnknownAfter later by one
// write setting every watched condition Unknown with the seed's text.
func (c Config) marked(j *conformance.Judging) conformance.Verdict {
	hs, end := factsOf(j).histories, j.End
	var f finding
	for _, h := range hs {
		for i, x := range h.facts {
			if x.kind != challenge {
				continue
			}
			due := x.at().Add(c.UnknownAfter)
			next := nextOf(h.facts[i+1:], move, mark)
			if next != nil && next.kind == move && !next.at().After(due.Add(c.Tolerance)) {
				continue // answered: nothing owed
			}
			if next == nil || next.kind == move {
				if end.After(due.Add(c.Tolerance)) {
					f.judged++
					f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s and not answered, but not set Unknown at %s", h.name, off(x.at()), off(due)), x)
				}
				continue
			}
			f.judged++
			if d := next.at().Sub(due); d > c.Tolerance || d < -c.Tolerance {
				f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was set Unknown at %s, want %s", h.name, off(x.at()), off(next.at()), off(due)), x, *next)
				continue
			}
			for _, t := range conditionTypes(x.before) {
				b, a := x.before[t], next.after[t]
				want := staleMessage(c.ChallengeAfter+c.UnknownAfter, b.Status, b.Message)
				if a.Status != "Unknown" || a.Message != want {
					f.fail(fmt.Sprintf("ClusterOperator/%s %s set to %s %q at %s, want Unknown %q", h.name, t, a.Status, a.Message, off(next.at()), want), x, *next)
					break
				}
				// The seed changes status and message only: the reason is kept
				// (README, "Seed 000 as implemented"), and a status that
				// changes moves lastTransitionTime to the mark, to the second
				// as the API server keeps it.
				if a.Reason != b.Reason {
					f.fail(fmt.Sprintf("ClusterOperator/%s %s reason changed from %q to %q at %s; the mark keeps the reason", h.name, t, b.Reason, a.Reason, off(next.at())), x, *next)
					break
				}
				if lag := next.at().Sub(a.LastTransitionTime); b.Status != "Unknown" && (lag < -c.Tolerance || lag >= time.Second+c.Tolerance) {
					f.fail(fmt.Sprintf("ClusterOperator/%s %s lastTransitionTime is %s after the mark at %s, want the mark's time (to the second): its status changed", h.name, t, off(a.LastTransitionTime), off(next.at())), x, *next)
					break
				}
			}
		}
	}
	return f.verdict("no challenge went unanswered in this run")
}

// STALE-005: a condition set Unknown follows an unanswered challenge by the
// full threshold with no movement between.
func (c Config) markJustified(j *conformance.Judging) conformance.Verdict {
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
func (c Config) writesPerCycle(j *conformance.Judging) conformance.Verdict {
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
