package rules

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/opcert/opcert/judge"
)

// A long recording of a live cluster (no process events: the detector up
// throughout, every operator running) is judged as it streams past, so
// that what is held does not grow with it: each ClusterOperator's facts go
// through the eight rules one at a time (objJudge), which keep only what a
// later fact can still change (the last movement, the challenges not yet
// settled, the current cycle) and the failures found. This is the batch
// rules (detector_rules.go, operator_rules.go) read forward, with the
// detector's life reduced to "always up"; TestOnlineJudgesAsBatch holds the
// two to the same verdicts. The reader keeps facts and judges in batch
// until onlineAfter facts, then replays them here and keeps none
// (reader.go); a process event after that leaves the rules not judged.

// onlineAfter is how many facts the reader keeps before it judges online:
// every simulated run, and any short recording, is judged in batch.
var onlineAfter = 1 << 16

// online is the rules' state over every ClusterOperator.
type online struct {
	cfg    Config
	start  time.Time
	objs   map[string]*objJudge
	broken string // why the timeline cannot be judged online after all
	done   map[time.Time][]judge.Verdict
	// late2 and late4 are the detector's reaction times past its deadlines
	// over every ClusterOperator, for STALE-002's and STALE-004's measures.
	late2, late4 judge.Latencies
}

func newOnline(cfg Config, start time.Time) *online {
	return &online{cfg: cfg, start: start, objs: map[string]*objJudge{}}
}

// off cites an instant as the rules do (judge.OffsetOf): "-354ms"
// for a recorded write stamped before the recording began, never
// "+-354ms".
func (o *online) off(t time.Time) string { return judge.OffsetOf(t.Sub(o.start)) }

// rule indexes, in Rules' order.
const (
	r001 = iota
	r002
	r003
	r004
	r005
	r006
	r007
	r008
	nRules
)

// objJudge is the rules' state for one ClusterOperator.
type objJudge struct {
	o        *online
	name     string
	f        [nRules]finding
	anyFact  bool
	firstAt  time.Time
	latency  judge.Latencies // STALE-007's, for its measure
	judged7  bool
	last1    *fact // STALE-001: the last movement
	earlier1 bool  //   and whether a fact came strictly before it
	last2    *fact // STALE-002: the movement owed a challenge
	due2     time.Time
	pending4 []fact // STALE-004: challenges not yet followed by a move or a mark
	ch5      *fact  // STALE-005
	moved5   *fact
	pastEnd4 []time.Time // STALE-004: deadlines of marks never written, measured to the end
	cycle6   []fact      // STALE-006
	queue    []*reply7   // STALE-007/008: challenges in order, settled from the head
	operated bool        // the reader's history.operatedAt for the fact being read
}

// reply7 is one challenge's wait for its answer.
type reply7 struct {
	challenge fact
	reply     *fact
	until     time.Time // the next detector write; zero while none came
	closed    bool
	operated  bool // the operator's to answer (history.operatedAt)
}

func (o *online) obj(name string) *objJudge {
	j := o.objs[name]
	if j == nil {
		j = &objJudge{o: o, name: name}
		o.objs[name] = j
	}
	return j
}

// read takes the next fact of the object.
func (j *objJudge) read(x fact) {
	c, off := j.o.cfg, j.o.off
	if !j.anyFact {
		j.anyFact, j.firstAt = true, x.at()
	}
	// STALE-001
	switch x.kind {
	case move:
		y := x
		j.last1, j.earlier1 = &y, j.firstAt.Before(x.at())
	case challenge:
		j.f[r001].judged++
		if last := j.last1; last != nil {
			since := last.at()
			if !j.earlier1 {
				since = latestTransition(*last)
			}
			if x.at().Before(since.Add(c.ChallengeAfter - c.Tolerance)) {
				what := "its conditions moved at " + off(last.at())
				if !since.Equal(last.at()) {
					what = fmt.Sprintf("the latest lastTransitionTime, %s, of conditions it had not seen before %s", off(since), off(last.at()))
				}
				j.f[r001].fail(fmt.Sprintf("ClusterOperator/%s challenged at %s, %s after %s (threshold %s)",
					j.name, off(x.at()), x.at().Sub(since), what, c.ChallengeAfter), *last, x)
			}
		}
	}
	// STALE-002
	switch x.kind {
	case move:
		j.overdue(x.at(), "its conditions moved again at "+off(x.at())+" without one", x)
		y := x
		j.last2, j.due2 = &y, x.at().Add(c.ChallengeAfter)
	case challenge, mark:
		j.overdue(x.at(), "the detector's next challenge came at "+off(x.at()), x)
		if j.last2 != nil {
			j.f[r002].judged++
			j.o.late2.Add(max(0, x.at().Sub(j.due2)))
		}
		j.last2 = nil
	}
	// STALE-003
	if x.kind == challenge {
		j.f[r003].judged++
		if msg := challengeProblem(x, off); msg != "" {
			j.f[r003].fail(fmt.Sprintf("ClusterOperator/%s %s", j.name, msg), x)
		}
	}
	// STALE-004
	if x.kind == move || x.kind == mark {
		for _, ch := range j.pending4 {
			j.marked(ch, &x, time.Time{})
		}
		j.pending4 = j.pending4[:0]
	}
	if x.kind == challenge {
		j.pending4 = append(j.pending4, x)
	}
	// STALE-005
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
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s without a challenge", j.name, off(x.at())), x)
		case j.moved5 != nil:
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s although its conditions moved at %s after the challenge at %s",
				j.name, off(x.at()), off(j.moved5.at()), off(j.ch5.at())), *j.ch5, *j.moved5, x)
		case x.at().Before(j.ch5.at().Add(c.UnknownAfter - c.Tolerance)):
			f.fail(fmt.Sprintf("ClusterOperator/%s set Unknown at %s, only %s after the challenge", j.name, off(x.at()), x.at().Sub(j.ch5.at())), *j.ch5, x)
		}
		j.ch5 = nil
	}
	// STALE-006
	if x.kind == move {
		j.flush6()
	} else {
		j.cycle6 = append(j.cycle6, x)
	}
	// STALE-007/008: the open wait ends with a detector write or an answer.
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
		j.queue = append(j.queue, &reply7{challenge: x, operated: j.operated})
	}
	j.settle(x.at(), time.Time{})
}

// overdue fails the challenge STALE-002 owes if t is past its deadline.
func (j *objJudge) overdue(t time.Time, what string, ev ...fact) {
	c, off := j.o.cfg, j.o.off
	if j.last2 == nil || !t.After(j.due2.Add(c.AnswerBudget+c.Tolerance)) {
		return
	}
	j.f[r002].judged++
	j.o.late2.Add(t.Sub(j.due2))
	j.f[r002].failUntil(fmt.Sprintf("ClusterOperator/%s was still from %s and due a challenge at %s, within the %s reaction bound; %s",
		j.name, off(j.last2.at()), off(j.due2), c.AnswerBudget, what), t, append([]fact{*j.last2}, ev...)...)
	j.last2 = nil
}

// marked judges STALE-004 for challenge x followed by next (a move or a
// mark; nil at the end).
func (j *objJudge) marked(x fact, next *fact, end time.Time) {
	c, off := j.o.cfg, j.o.off
	f := &j.f[r004]
	due := x.at().Add(c.UnknownAfter)
	latest, slack := due, c.AnswerBudget+c.Tolerance
	want := fmt.Sprintf("at %s (or within the %s reaction bound)", off(due), c.AnswerBudget)
	if next != nil && next.kind == move && !next.at().After(latest.Add(slack)) {
		return // answered: nothing owed
	}
	if next == nil || next.kind == move {
		// A move after the deadline: the end is past it, and past the deadline.
		if next != nil || end.After(latest.Add(slack)) {
			f.judged++
			j.pastEnd4 = append(j.pastEnd4, latest)
			f.failUntil(fmt.Sprintf("ClusterOperator/%s challenged at %s and not answered, but not set Unknown %s", j.name, off(x.at()), want), endMarker, x)
		}
		return
	}
	f.judged++
	j.o.late4.Add(max(0, next.at().Sub(latest)))
	if next.at().Before(due.Add(-c.Tolerance)) || next.at().After(latest.Add(slack)) {
		f.fail(fmt.Sprintf("ClusterOperator/%s challenged at %s was set Unknown at %s, want it %s", j.name, off(x.at()), off(next.at()), want), x, *next)
		return
	}
	if msg := markProblem(c, x, *next, off); msg != "" {
		f.fail(fmt.Sprintf("ClusterOperator/%s %s", j.name, msg), x, *next)
	}
}

// endMarker stands for the end of the timeline in a problem's window
// until the end is known (finish).
var endMarker = time.Unix(0, 1).UTC()

func (j *objJudge) flush6() {
	f := &j.f[r006]
	if len(j.cycle6) > 0 {
		f.judged++
	}
	if len(j.cycle6) > 2 {
		f.fail(fmt.Sprintf("ClusterOperator/%s: %d detector writes between %s and %s", j.name, len(j.cycle6),
			j.o.off(j.cycle6[0].at()), j.o.off(j.cycle6[len(j.cycle6)-1].at())), j.cycle6...)
	}
	j.cycle6 = j.cycle6[:0]
}

// settle judges STALE-007 and STALE-008 for the challenges at the head of
// the queue whose fate is known at now (or, with end set, at the end): an
// answered one at once, an unanswered one once both windows have passed.
func (j *objJudge) settle(now, end time.Time) {
	c := j.o.cfg
	for len(j.queue) > 0 {
		w := j.queue[0]
		if !w.operated { // no operator's to answer
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
			if w.reply == nil && x.at().Add(r.window).After(end) && atEnd {
				continue // not yet judgeable
			}
			j.answer(r.idx, x, w.reply, until)
		}
		j.queue = j.queue[1:]
	}
}

// answer judges one challenge for STALE-007 (idx r007) or STALE-008.
func (j *objJudge) answer(idx int, x fact, reply *fact, until time.Time) {
	c, off := j.o.cfg, j.o.off
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

// finish judges what the end settles, once per end.
func (j *objJudge) finish(end time.Time) {
	j.overdue(end, "nothing came by the end of the run at "+j.o.off(end))
	for _, ch := range j.pending4 {
		j.marked(ch, nil, end)
	}
	j.pending4 = nil
	for _, due := range j.pastEnd4 {
		j.o.late4.Add(end.Sub(due))
	}
	j.pastEnd4 = nil
	j.flush6()
	j.settle(end, end)
	for i := range j.f {
		for k := range j.f[i].problems {
			if j.f[i].problems[k].To.Equal(endMarker) {
				j.f[i].problems[k].To = end
			}
		}
	}
}

// verdicts are the rules' verdicts, in Rules' order, once the timeline
// ends at end. Objects are judged in name order, as the batch rules go.
func (o *online) verdicts(end time.Time) []judge.Verdict {
	if v, ok := o.done[end]; ok {
		return v
	}
	if o.broken != "" {
		out := make([]judge.Verdict, nRules)
		for i := range out {
			out[i] = judge.Verdict{Status: "skip", Message: "not judged: " + o.broken}
		}
		return out
	}
	names := make([]string, 0, len(o.objs))
	for n := range o.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	var all [nRules]finding
	var measures []measured
	for _, n := range names {
		j := o.objs[n]
		j.finish(end)
		for i := range all {
			all[i].judged += j.f[i].judged
			all[i].problems = append(all[i].problems, j.f[i].problems...)
			all[i].evidence = append(all[i].evidence, j.f[i].evidence...)
		}
		if j.judged7 {
			measures = append(measures, measured{n, &j.latency})
		}
	}
	nothing := [nRules]string{"no challenge in this run", "no ClusterOperator was still long enough", "no challenge in this run",
		"no challenge went unanswered in this run", "nothing was set Unknown in this run", "the detector wrote nothing in this run",
		"no challenge reached a running operator", "no challenge reached a running operator"}
	out := make([]judge.Verdict, nRules)
	for i := range out {
		out[i] = all[i].verdict(nothing[i])
	}
	out[r002] = withMeasure(out[r002], &o.late2, challengeLateness, o.cfg.AnswerBudget)
	out[r004] = withMeasure(out[r004], &o.late4, markLateness, o.cfg.AnswerBudget)
	slices.SortFunc(measures, func(a, b measured) int { return compareStrings(a.name, b.name) })
	for _, m := range measures {
		out[r007].Measures = append(out[r007].Measures, m.latencies.Measure("ClusterOperator/"+m.name, o.cfg.AnswerBudget))
	}
	if o.done == nil {
		o.done = map[time.Time][]judge.Verdict{}
	}
	o.done[end] = out
	return out
}

type measured struct {
	name      string
	latencies *judge.Latencies
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
