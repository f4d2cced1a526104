package rules

import (
	"fmt"
	"time"
)

// The operator's rules, STALE-007 and STALE-008, read one fact of a
// ClusterOperator at a time (judging.go): each challenge to an operated
// ClusterOperator waits, in order, for the first move answering it (or the
// detector's next write, or the end), and is judged if its operator was
// running from the challenge until the answer, or for the rule's whole
// window when unanswered.

// reply7 is one challenge's wait for its answer.
type reply7 struct {
	challenge fact
	reply     *fact
	until     time.Time // the next detector write; zero while none came
	closed    bool
	// operated says the challenge is the operator's to answer: it had
	// written the ClusterOperator by then. One that only the scenario
	// wrote (a create step's object, status and all) has no operator under
	// test: no one was there to answer. In a recording every writer but
	// the detector is the operator, so every ClusterOperator there is
	// operated.
	operated bool
}

// answers takes the next fact for STALE-007 and STALE-008: the open wait
// ends with a detector write or an answer.
func (j *objJudge) answers(x fact, operated bool) {
	if n := len(j.queue); n > 0 && !j.queue[n-1].closed {
		w := j.queue[n-1]
		switch {
		case x.kind != move:
			w.until, w.closed = x.at(), true
		case answers(w.challenge, x):
			y := x
			w.reply, w.closed = &y, true
		}
	}
	if x.kind == challenge {
		j.queue = append(j.queue, &reply7{challenge: x, operated: operated})
	}
	j.settle(x.at(), time.Time{})
}

// settle judges STALE-007 and STALE-008 for the challenges at the head of
// the queue whose fate is known at now (or, with end set, at the end): an
// answered one at once, an unanswered one once both windows have passed.
func (j *objJudge) settle(now, end time.Time) {
	c := j.g.cfg
	for len(j.queue) > 0 {
		w := j.queue[0]
		if !w.operated {
			j.queue = j.queue[1:]
			continue
		}
		x := w.challenge
		atEnd := !end.IsZero()
		if w.reply == nil && !atEnd && (!w.closed || now.Before(x.at().Add(max(c.AnswerBudget, c.UnknownAfter)))) {
			return // its fate depends on what comes, or on where the timeline ends
		}
		until := w.until
		if !w.closed {
			until = end
		}
		for _, r := range []struct {
			idx    int
			window time.Duration
		}{{r007, c.AnswerBudget}, {r008, c.UnknownAfter}} {
			upTo := x.at().Add(r.window)
			switch {
			case w.reply != nil && w.reply.at().Before(upTo):
				upTo = w.reply.at()
			case w.reply == nil && atEnd && upTo.After(end):
				continue // not yet judgeable
			}
			if !j.down(x.at(), upTo) {
				j.answer(r.idx, x, w.reply, until)
			}
		}
		j.queue = j.queue[1:]
	}
}

// down tells whether the object's operator was down, or under an API
// fault, at any instant of [from, to].
func (j *objJudge) down(from, to time.Time) bool {
	op := OperatorActor(j.name)
	return j.g.procs.Unreachable(op, from, to)
}

// answer judges one challenge for STALE-007 (idx r007: the time from a
// challenge to the operator's reset is within the budget, reported per
// operator as count, p50, p99 and max) or STALE-008 (a running operator
// answers every challenge before it would be marked Unknown).
func (j *objJudge) answer(idx int, x fact, reply *fact, until time.Time) {
	c, off := j.g.cfg, j.g.off
	f := &j.f[idx]
	f.judged++
	if idx == r007 {
		j.judged7 = true
		if reply == nil {
			j.latency.Add(until.Sub(x.at()))
			f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s was never reset", j.name, off(x.at())), until, x)
			return
		}
		d := reply.at().Sub(x.at())
		j.latency.Add(d)
		if d > c.AnswerBudget+c.Tolerance {
			f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was reset after %s, over the %s budget",
				j.name, off(x.at()), d, c.AnswerBudget), x, *reply)
		}
		return
	}
	if reply == nil || !reply.at().Before(x.at().Add(c.UnknownAfter)) {
		if reply != nil {
			until = reply.at()
		}
		f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s was not reset within %s although its operator was running",
			j.name, off(x.at()), c.UnknownAfter), until, x)
	}
}
