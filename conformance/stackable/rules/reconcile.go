package rules

import (
	"fmt"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// "Within one reconcile", the timing of every rule on what the operator
// owes a state (doc.go, Readings): between two changes of what the
// operator reads of a cluster, what it should have written is fixed. Each
// such interval longer than the tolerance is judged at its start plus the
// tolerance (with none, once every event of its first instant has
// happened: quiescence in virtual time), then at every write of the
// output after that and before the next change.

// watch is one output of the operator for one cluster.
type watch struct {
	// input tells whether the story's event changes what the output
	// should be.
	input func(e timeline.Event) bool
	// output tells whether the story's event is the operator's write of
	// the output.
	output func(e timeline.Event) bool
	// check compares the output to what it should be in a scene: what
	// differs ("" when nothing does), and whether there was anything to
	// judge.
	check func(sc scene) (problem string, judged bool)
}

// judgeIntervals judges w over the story s of all, adding to g.
func (c Config) judgeIntervals(j *conformance.Judging, all *stories, s *story, w watch, g *conformance.Judgement) {
	// The first input event of each instant at which inputs changed.
	var starts []int
	for i, e := range s.events {
		if w.input(e) && (len(starts) == 0 || !s.events[starts[len(starts)-1]].Time.Equal(e.Time)) {
			starts = append(starts, i)
		}
	}
	for k, first := range starts {
		from := s.events[first].Time
		next, nextPos := j.End, len(s.events)
		if k+1 < len(starts) {
			nextPos = starts[k+1]
			next = s.events[nextPos].Time
		}
		if c.Tolerance > 0 && next.Sub(from) <= c.Tolerance {
			continue // shorter than the tolerance: not judged
		}
		owed, ok := all.procs.Owed(actorOperator, from, c.Tolerance)
		if !ok {
			g.Skip(fmt.Sprintf("%s down from %s", actorOperator, j.Offset(from)))
			continue
		}
		if owed.After(j.End) {
			g.Skip(fmt.Sprintf("the run ended before %s, when the change at %s was owed", j.Offset(owed), j.Offset(from)))
			continue
		}
		if owed.After(from) && !owed.Before(next) {
			g.Skip(fmt.Sprintf("%s came back after the change at %s only once the next one was made", actorOperator, j.Offset(from)))
			continue
		}
		// The last event at or before the deadline, and the last input
		// event of the interval's first instant: the change judged.
		at, cause := first, first
		for i := first; i < nextPos && !s.events[i].Time.After(owed); i++ {
			at = i
			if w.input(s.events[i]) && s.events[i].Time.Equal(from) {
				cause = i
			}
		}
		problem, judged := w.check(s.after[at])
		if !judged {
			continue
		}
		g.Judged++
		if problem != "" {
			ev := []timeline.Event{s.events[cause]}
			if last := lastOutput(s, w, at); last >= 0 {
				ev = append(ev, s.events[last])
			}
			g.FailIn(fmt.Sprintf("%s (at %s, after the change at %s)", problem, j.Offset(owed), j.Offset(from)), from, owed, ev...)
			continue
		}
		for i := at + 1; i < nextPos; i++ {
			if !w.output(s.events[i]) {
				continue
			}
			if problem, _ := w.check(s.after[i]); problem != "" {
				g.FailIn(fmt.Sprintf("%s (write at %s, after the change at %s)", problem, j.Offset(s.events[i].Time), j.Offset(from)),
					from, s.events[i].Time, s.events[cause], s.events[i])
				break
			}
		}
	}
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
