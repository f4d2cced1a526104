package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/opcert/opcert/judge"
)

// answer is one challenge to a running operator and how it was answered.
type answer struct {
	h         *history
	challenge fact
	reply     *fact     // nil: not answered (before the next detector write or the end)
	until     time.Time // unanswered: when the wait ended (the next detector write, or the end)
}

// challengesToLiveOperators pairs every challenge to an operated
// ClusterOperator (history.operatedAt) with the first move
// answering it, keeping those whose operator was up from the challenge
// until the answer (or for the whole window, unanswered). An unanswered
// challenge whose window runs past end is left out: not yet judgeable; an
// answered one is judged however short the run (a real-time run at a
// small time scale may end well within the 30s window).
func challengesToLiveOperators(j *judge.Judging, window time.Duration) []answer {
	f := factsOf(j)
	hs, procs, end := f.histories, f.procs, j.End
	var out []answer
	for _, h := range hs {
		for i, x := range h.facts {
			if x.kind != challenge || !h.operatedAt(i) {
				continue
			}
			a := answer{h: h, challenge: x}
			a.until = end
			for k := i + 1; k < len(h.facts); k++ {
				y := &h.facts[k] // a pointer into the history: no copy per challenge
				if y.kind != move {
					a.until = y.at() // the detector wrote again: unanswered
					break
				}
				if answers(x, *y) {
					a.reply = y
					break
				}
			}
			upTo := x.at().Add(window)
			switch {
			case a.reply != nil && a.reply.at().Before(upTo):
				upTo = a.reply.at()
			case a.reply == nil && upTo.After(end):
				continue
			}
			if !procs.downDuring(OperatorActor(h.name), x.at(), upTo) {
				out = append(out, a)
			}
		}
	}
	return out
}

// STALE-007: the time from a challenge to the operator's reset is within
// the budget; reported per operator as count, p50, p99 and max.
func (c Config) answerTime(j *judge.Judging) judge.Verdict {
	off := j.Offset
	var f finding
	times := map[string]*judge.Latencies{}
	var names []string
	for _, a := range challengesToLiveOperators(j, c.AnswerBudget) {
		f.judged++
		if _, ok := times[a.h.name]; !ok {
			names = append(names, a.h.name)
			times[a.h.name] = &judge.Latencies{}
		}
		if a.reply == nil {
			times[a.h.name].Add(a.until.Sub(a.challenge.at()))
			f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s was never reset", a.h.name, off(a.challenge.at())), a.until, a.challenge)
			continue
		}
		d := a.reply.at().Sub(a.challenge.at())
		times[a.h.name].Add(d)
		if d > c.AnswerBudget+c.Tolerance {
			f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was reset after %s, over the %s budget",
				a.h.name, off(a.challenge.at()), d, c.AnswerBudget), a.challenge, *a.reply)
		}
	}
	v := f.verdict("no challenge reached a running operator")
	slices.Sort(names)
	for _, n := range names {
		v.Measures = append(v.Measures, times[n].Measure("ClusterOperator/"+n, c.AnswerBudget))
	}
	return v
}

// STALE-008: a running operator answers every challenge before it would be
// marked Unknown.
func (c Config) answered(j *judge.Judging) judge.Verdict {
	off := j.Offset
	var f finding
	for _, a := range challengesToLiveOperators(j, c.UnknownAfter) {
		f.judged++
		if a.reply == nil || !a.reply.at().Before(a.challenge.at().Add(c.UnknownAfter)) {
			until := a.until
			if a.reply != nil {
				until = a.reply.at()
			}
			f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s was not reset within %s although its operator was running",
				a.h.name, off(a.challenge.at()), c.UnknownAfter), until, a.challenge)
		}
	}
	return f.verdict("no challenge reached a running operator")
}
