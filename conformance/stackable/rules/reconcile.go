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
// or one after it). With no slack, a change is owed once every event of
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

// judge judges w over the story s of all, adding to g and, for each change
// that needed one, the operator's reaction to r.
func (c Config) judge(j *judge.Judging, all *stories, s *story, w watch, g *judge.Findings, r *reactions) {
	slack := c.slack()
	// The first input event of each instant at which inputs changed.
	var starts []int
	for i, e := range s.events {
		if w.input(e) && (len(starts) == 0 || !s.events[starts[len(starts)-1]].Time.Equal(e.Time)) {
			starts = append(starts, i)
		}
	}
	for k, first := range starts {
		from := s.events[first].Time
		next := len(s.events)
		if k+1 < len(starts) {
			next = starts[k+1]
		}
		r.measure(s, w, first, next)
		owed, ok := all.procs.Owed(actorOperator, from, slack)
		if !ok {
			g.Skip(fmt.Sprintf("%s down from %s", actorOperator, j.Offset(from)))
			continue
		}
		if owed.After(j.End) {
			g.Skip(fmt.Sprintf("the run ended before %s, when the change at %s was owed", j.Offset(owed), j.Offset(from)))
			continue
		}
		at := s.last(first, owed, true)
		problem, judged := c.window(s, w, s.last(first, owed.Add(-slack), true), at, at)
		if !judged {
			continue
		}
		g.Judged++
		if problem != "" {
			ev := []timeline.Event{s.events[s.last(first, from, true)]}
			if last := lastOutput(s, w, at); last >= 0 {
				ev = append(ev, s.events[last])
			}
			g.FailIn(fmt.Sprintf("%s (at %s, after the change at %s)", problem, j.Offset(owed), j.Offset(from)), from, owed, ev...)
		}
	}
	for i, e := range s.events {
		if !w.output(e) {
			continue
		}
		lo := s.last(0, e.Time.Add(-slack), false)
		if problem, judged := c.window(s, w, max(lo, 0), i, i); judged && problem != "" {
			since := s.events[max(lo, 0)].Time
			ev := []timeline.Event{e}
			if cause := lastInput(s, w, i); cause >= 0 {
				ev = []timeline.Event{s.events[cause], e}
			}
			g.FailIn(fmt.Sprintf("%s (write at %s, reflecting no state since %s)", problem, j.Offset(e.Time), j.Offset(since)), since, e.Time, ev...)
		}
	}
}

// last is the index of the story's last event from index i on at or
// before t (before t when !inclusive), or i-1 when there is none.
func (s *story) last(i int, t time.Time, inclusive bool) int {
	for i < len(s.events) && (s.events[i].Time.Before(t) || inclusive && s.events[i].Time.Equal(t)) {
		i++
	}
	return i - 1
}

// window judges the output as scene out holds it against the worlds
// after each of the story's events lo to hi: it passes if one of them
// asks nothing or is matched; it fails with the latest world's problem.
func (c Config) window(s *story, w watch, lo, hi, out int) (string, bool) {
	problem, judged := "", false
	for i := hi; i >= lo && i >= 0; i-- {
		p, ok := w.check(s.after[i], s.after[out])
		if !ok || p == "" {
			return "", ok || judged
		}
		if !judged {
			problem, judged = p, true
		}
	}
	return problem, judged
}

// lastOutput is the last output write up to the story's event i, or -1:
// what stood at the deadline.
func lastOutput(s *story, w watch, i int) int {
	for ; i >= 0; i-- {
		if w.output(s.events[i]) {
			return i
		}
	}
	return -1
}

// lastInput is the last input event up to the story's event i, or -1.
func lastInput(s *story, w watch, i int) int {
	for ; i >= 0; i-- {
		if w.input(s.events[i]) {
			return i
		}
	}
	return -1
}

// reactions are the operator's reactions to the changes that needed one,
// for a rule's measure: from a change to the first write after it that
// matches the world it wrote in.
type reactions struct {
	name string
	took judge.Latencies
}

// measure notes the reaction to the change at the story's event first,
// the next one at event next: none when the output standing before it
// already matched the world after its instant, or when no write matched
// before the next change.
func (r *reactions) measure(s *story, w watch, first, next int) {
	if first == 0 {
		return
	}
	settled := s.last(first, s.events[first].Time, true)
	if p, judged := w.check(s.after[settled], s.after[first-1]); !judged || p == "" {
		return
	}
	for i := first; i < next; i++ {
		if !w.output(s.events[i]) {
			continue
		}
		if p, judged := w.check(s.after[i], s.after[i]); judged && p == "" {
			r.took.Add(s.events[i].Time.Sub(s.events[first].Time))
			return
		}
	}
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
