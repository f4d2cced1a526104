package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// "Within one reconcile", the timing every state rule uses (doc.go,
// Readings): between two changes of what a subject reads, what it should
// write is fixed. Each such interval longer than the tolerance is judged
// at its start plus the tolerance (with none, at the interval's first
// instant once every event of that instant has happened: quiescence in
// virtual time), and at every write of the output after that and before
// the next change.

// watch is one output of one subject, judged interval by interval.
type watch struct {
	// actor is the subject's process: while it is down its outputs are
	// not judged, until it starts again plus the tolerance.
	actor string
	// input tells whether event i changes what the output should be
	// (including someone else's write of the output).
	input func(i int, e timeline.Event) bool
	// output tells whether event i is the subject's write of the output.
	output func(i int, e timeline.Event) bool
	// check compares the output to what it should be in w: what differs
	// ("" when nothing does), and whether there was anything to judge.
	check func(w *world) (problem string, judged bool)
}

// judgeIntervals judges w over s, adding to f, and returns the reaction
// measured on each interval judged right at its deadline: the time from
// the change to the subject's last write of the output up to the deadline
// (zero when the output was already right and it wrote nothing).
func (c Config) judgeIntervals(j *judge.Judging, s *story, w watch, f *judge.Findings) []time.Duration {
	var reactions []time.Duration
	// The first input event of each instant at which inputs changed.
	var starts []int
	for i, e := range s.events {
		if w.input(i, e) && (len(starts) == 0 || !s.events[starts[len(starts)-1]].Time.Equal(e.Time)) {
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
		if c.allowance() > 0 && next.Sub(from) <= c.allowance() {
			continue // shorter than the tolerance: not judged
		}
		owed, ok := s.procs.Owed(w.actor, from, c.allowance())
		if !ok {
			f.Skip(fmt.Sprintf("%s down from %s", w.actor, j.Offset(from)))
			continue
		}
		if owed.After(j.End) {
			f.Skip(fmt.Sprintf("the run ended before %s, when the change at %s was owed", j.Offset(owed), j.Offset(from)))
			continue
		}
		if owed.After(from) && !owed.Before(next) {
			f.Skip(fmt.Sprintf("%s came back after the change at %s only once the next one was made", w.actor, j.Offset(from)))
			continue
		}
		// The last event at or before the deadline, and the last input
		// event of the interval's first instant: the change judged.
		at, cause := first, first
		for i := first; i < nextPos && !s.events[i].Time.After(owed); i++ {
			at = i
			if w.input(i, s.events[i]) && s.events[i].Time.Equal(from) {
				cause = i
			}
		}
		problem, judged := w.check(s.after[at])
		if !judged {
			continue
		}
		f.Judged++
		if problem != "" {
			ev := []timeline.Event{s.events[cause]}
			if last := lastOutput(s, w, at); last >= 0 {
				ev = append(ev, s.events[last])
			}
			f.FailIn(fmt.Sprintf("%s (at %s, after the change at %s)", problem, j.Offset(owed), j.Offset(from)), from, owed, ev...)
			continue
		}
		reaction := time.Duration(0)
		if last := lastOutput(s, w, at); last >= first {
			reaction = s.events[last].Time.Sub(from)
		}
		reactions = append(reactions, reaction)
		for i := at + 1; i < nextPos; i++ {
			if !w.output(i, s.events[i]) {
				continue
			}
			if problem, _ := w.check(s.after[i]); problem != "" {
				f.FailIn(fmt.Sprintf("%s (write at %s, after the change at %s)", problem, j.Offset(s.events[i].Time), j.Offset(from)),
					from, s.events[i].Time, s.events[cause], s.events[i])
				break
			}
		}
	}
	return reactions
}

// measure is the reactions of one output as a report shows them: how
// many, the median, the 99th percentile and the worst, against the bound.
func (c Config) measure(name string, reactions []time.Duration) reports.Measure {
	var l judge.Latencies
	for _, d := range reactions {
		l.Add(d)
	}
	return l.Measure(name, c.allowance())
}

// lastOutput is the last output write up to event i, or -1: what stood
// at the deadline.
func lastOutput(s *story, w watch, i int) int {
	for ; i >= 0; i-- {
		if w.output(i, s.events[i]) {
			return i
		}
	}
	return -1
}
