package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The timing of every rule on what the operator owes a state (doc.go,
// Readings): the operator reflects what it reads within the reaction
// bound (Config.Reaction, plus the tolerance of a real-time run: the
// slack). What it has written at any instant t must match a state of the
// world that stood at some instant in [t - slack, t]: judged at each of
// its writes, and at each change plus the slack (the change reflected,
// or one after it). While the operator was down or its calls failed it
// could neither read nor write: a change then is owed the slack after it
// could again, and its writes until then may reflect the world as it
// stood the slack before it could not (judge.Processes Owed, Reflects),
// as its reconcile writes its objects one by one. With no slack, a change is owed once every event of
// its instant has happened (quiescence in virtual time), and a write may
// reflect any state of its instant before it, or the one before.

// watch is one output of the operator for one cluster.
type watch struct {
	// input tells whether the story's event changes what the output
	// should be.
	input func(e timeline.Event) bool
	// output tells whether the story's event is the operator's write of
	// the output.
	output func(e timeline.Event) bool
	// check compares the output as the scene out holds it to what the
	// world of the scene world asks: what differs ("" when nothing
	// does), and whether the world asks anything.
	check func(world, out scene) (problem string, judged bool)
}

// watching is one watch of one cluster judged as its story streams past:
// each write of the output at once, against the worlds of the slack
// before it; each change (the first input of an instant) once its
// deadline has passed (stream.go calls owe in the order of the changes);
// the operator's reaction to a change as its writes come.
type watching struct {
	s    *story
	w    watch
	f    *findings
	r    *reactions
	last time.Time // the instant of the latest change
	any  bool      // whether a change came
	m    measuring
	// owing are the changes whose deadline has not come, by number.
	owing []int
	// cutOutput and cutInput are the last output and input before the
	// story's window, if any.
	cutOutput, cutInput *timeline.Event
}

// measuring is the reaction to the latest change being measured: from
// the change to the first write after it, before the next change, that
// matches the world it wrote in; none when the output standing before it
// already matched the world after its instant.
type measuring struct {
	first  int       // the change's number
	prior  scene     // the scene before it
	closed bool      // its instant is over: settled and scanning
	done   bool      // measured, or nothing to measure
	at     time.Time // its instant
}

// read takes the story's event i: closes the instant of the change being
// measured, starts a new change, judges a write against the worlds since
// the instant since (the slack before it, or more after the operator
// could not act: judging.reflects).
func (wt *watching) read(c Config, i int, since time.Time, off func(time.Time) string) {
	s, e := wt.s, wt.s.ev(i)
	if wt.any && !wt.m.done && !wt.m.closed && e.Time.After(wt.m.at) {
		wt.settle(i - 1)
	}
	if wt.w.input(e) && (!wt.any || !e.Time.Equal(wt.last)) {
		wt.any, wt.last = true, e.Time
		// The story's first event has no output before it to measure from.
		wt.m = measuring{first: i, prior: s.before(i), at: e.Time, done: i == 0}
		wt.owing = append(wt.owing, i)
	}
	if !wt.w.output(e) {
		return
	}
	if wt.m.closed && !wt.m.done {
		wt.react(i)
	}
	lo := max(s.last(s.base, since, false), 0)
	if problem, judged := c.window(s, wt.w, lo, i, i); judged && problem != "" {
		since := s.ev(lo).Time
		ev := []timeline.Event{e}
		if cause, ok := wt.lastInput(i); ok {
			ev = []timeline.Event{cause, e}
		}
		wt.f.written = append(wt.f.written, judge.Problem{
			Message: fmt.Sprintf("%s (write at %s, reflecting no state since %s)", problem, off(e.Time), off(since)),
			From:    since, To: e.Time, Evidence: ev})
	}
}

// settle closes the instant of the change being measured, whose last
// event is settled: the reaction is measured if the output standing
// before the change does not match the world after its instant, from the
// writes of the instant on.
func (wt *watching) settle(settled int) {
	wt.m.closed = true
	if p, judged := wt.w.check(wt.s.at(settled), wt.m.prior); !judged || p == "" {
		wt.m.done = true
		return
	}
	for i := wt.m.first; i <= settled && !wt.m.done; i++ {
		if wt.w.output(wt.s.ev(i)) {
			wt.react(i)
		}
	}
}

// react measures the reaction if the output write i matches the world
// it was written in.
func (wt *watching) react(i int) {
	if p, judged := wt.w.check(wt.s.at(i), wt.s.at(i)); judged && p == "" {
		wt.r.took.Add(wt.s.ev(i).Time.Sub(wt.m.at))
		wt.m.done = true
	}
}

// owe judges the oldest change still owed, first, whose deadline is
// owed: the output as it stood then must match a world of the slack
// before it.
func (wt *watching) owe(c Config, first int, owed time.Time, off func(time.Time) string) {
	s := wt.s
	wt.owing = wt.owing[1:]
	at := s.last(first, owed, true)
	problem, judged := c.window(s, wt.w, s.last(first, owed.Add(-c.slack()), true), at, at)
	if !judged {
		return
	}
	wt.f.judged++
	if problem == "" {
		return
	}
	from := s.ev(first).Time
	ev := []timeline.Event{s.ev(s.last(first, from, true))}
	if last, ok := wt.lastOutput(at); ok {
		ev = append(ev, last)
	}
	wt.f.owed = append(wt.f.owed, judge.Problem{
		Message: fmt.Sprintf("%s (at %s, after the change at %s)", problem, off(owed), off(from)),
		From:    from, To: owed, Evidence: ev})
}

// finish ends the measure of the last change at the end of the story.
func (wt *watching) finish() {
	if wt.any && !wt.m.closed && !wt.m.done {
		wt.settle(wt.s.next() - 1)
	}
}

// keep is the first event the watching still reads: the oldest change
// owed, or the change being measured while its instant lasts; next when
// none.
func (wt *watching) keep() int {
	k := wt.s.next()
	if len(wt.owing) > 0 {
		k = wt.owing[0]
	}
	if wt.any && !wt.m.closed && !wt.m.done {
		k = min(k, wt.m.first)
	}
	return k
}

// cutting notes the last output and input among the events the story is
// about to drop (before i).
func (wt *watching) cutting(i int) {
	for k := i - 1; k >= wt.s.base; k-- {
		if e := wt.s.ev(k); wt.w.output(e) {
			wt.cutOutput = &e
			break
		}
	}
	for k := i - 1; k >= wt.s.base; k-- {
		if e := wt.s.ev(k); wt.w.input(e) {
			wt.cutInput = &e
			break
		}
	}
}

// window judges the output as scene out holds it against the worlds
// after each of the story's events lo to hi: it passes if one of them
// asks nothing or is matched; it fails with the latest world's problem.
func (c Config) window(s *story, w watch, lo, hi, out int) (string, bool) {
	problem, judged := "", false
	for i := hi; i >= lo && i >= 0; i-- {
		p, ok := w.check(s.at(i), s.at(out))
		if !ok || p == "" {
			return "", ok || judged
		}
		if !judged {
			problem, judged = p, true
		}
	}
	return problem, judged
}

// lastOutput is the last output write up to the story's event i: what
// stood at the deadline.
func (wt *watching) lastOutput(i int) (timeline.Event, bool) {
	for ; i >= wt.s.base; i-- {
		if e := wt.s.ev(i); wt.w.output(e) {
			return e, true
		}
	}
	if wt.cutOutput != nil {
		return *wt.cutOutput, true
	}
	return timeline.Event{}, false
}

// lastInput is the last input event up to the story's event i.
func (wt *watching) lastInput(i int) (timeline.Event, bool) {
	for ; i >= wt.s.base; i-- {
		if e := wt.s.ev(i); wt.w.input(e) {
			return e, true
		}
	}
	if wt.cutInput != nil {
		return *wt.cutInput, true
	}
	return timeline.Event{}, false
}

// reactions are the operator's reactions to the changes that needed one,
// for a rule's measure.
type reactions struct {
	name string
	took judge.Latencies
}

// verdict is the judgement's verdict with the reactions measured against
// the slack.
func (r *reactions) verdict(g *judge.Findings, nothing string, slack time.Duration) judge.Verdict {
	v := g.Verdict(nothing)
	if r.took.Count() > 0 {
		v.Measures = []reports.Measure{r.took.Measure("SampleCluster/"+r.name, slack)}
	}
	return v
}
