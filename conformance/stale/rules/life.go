package rules

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// When the detector was up decides what it could know, and so what it owed
// (conformance/stale/README.md, "As implemented" and the audit):
//
//   - A detector that sees a ClusterOperator for the first time (at its
//     start, or when the object appears) has only the conditions'
//     lastTransitionTime to go by (000 §Proposal ¶2: "Suppose the
//     lastTransitionTime field is not updated for 10 minutes"): it may
//     challenge 10m after the latest of them, at once if that is past.
//   - A movement it saw while up (000 §Proposal ¶5: "if any of these
//     conditions are updated, we assume the operator is still active")
//     restarts the 10 minutes from the write.
//   - While it is down it owes nothing; a detector that starts again owes
//     the challenge at its return if the transition times are old by then,
//     and a mark 10 minutes after its return for a challenge it finds
//     unanswered (the message does not say when it was written).
//   - A detector cut off and reconnected keeps its memory but missed the
//     writes meanwhile; it owes a challenge no later than 10 minutes after
//     it is back. A detector whose API calls fail for a while (an API
//     fault) is read the same way: it can neither look nor write until the
//     fault clears.
//
// A timeline with no process events of the detector (a recording of a live
// cluster) has it up throughout, as one incarnation.

// upSpan is one stretch of time the detector was up: from its start or
// reconnection to its death or hang (to is zero while up at the end).
type upSpan struct {
	from, to time.Time
	// fresh says the stretch began with a start: a new process, with no
	// memory of what it saw before.
	fresh bool
}

// life is the detector's up spans, in time order.
type life []upSpan

// noteDetector adds one process event of the detector.
func (l life) noteDetector(e timeline.Event) life {
	open := len(l) > 0 && l[len(l)-1].to.IsZero()
	switch e.Verb {
	case timeline.VerbStart, timeline.VerbReconnect, timeline.VerbClear:
		if !open {
			l = append(l, upSpan{from: e.Time, fresh: e.Verb == timeline.VerbStart})
		}
	case timeline.VerbKill, timeline.VerbHang, timeline.VerbFault:
		if open {
			l[len(l)-1].to = e.Time
		}
	}
	return l
}

// alwaysUp is the life of a detector that no process event brought up on
// the timeline: one incarnation, up over all time.
func alwaysUp() life { return life{{fresh: true}} }

// up tells whether a process event brings the detector up.
func up(verb string) bool {
	return verb == timeline.VerbStart || verb == timeline.VerbReconnect || verb == timeline.VerbClear
}

func (s upSpan) upAt(t time.Time) bool {
	return !t.Before(s.from) && (s.to.IsZero() || t.Before(s.to))
}

// through says s is up from its start until after t.
func (s upSpan) through(t time.Time) bool { return s.to.IsZero() || t.Before(s.to) }

// at is the span up at t, or -1.
func (l life) at(t time.Time) int {
	for i, s := range l {
		if s.upAt(t) {
			return i
		}
	}
	return -1
}

// incarnation is the first span of the process that is up in span i: the
// last fresh span at or before i.
func (l life) incarnation(i int) int {
	for i > 0 && !l[i].fresh {
		i--
	}
	return i
}

// after is the index of the first span that starts at or after t, or -1.
func (l life) after(t time.Time) int {
	for i, s := range l {
		if !s.from.Before(t) {
			return i
		}
	}
	return -1
}

// latestTransition is the latest lastTransitionTime of the watched
// conditions, capped at the write (a transition time in the future says
// nothing the write does not).
func latestTransition(f fact) time.Time {
	var latest time.Time
	for _, c := range f.after {
		if c.LastTransitionTime.After(latest) {
			latest = c.LastTransitionTime
		}
	}
	if latest.After(f.at()) {
		return f.at()
	}
	return latest
}

// owed is when a detector owes the next write after something at from that
// it should act on after wait: from+wait if the detector is up from from
// through then and through the slack it has to act (the reaction bound: a
// detector that would act a few seconds late and is stopped before it
// could is owed its return); otherwise, after each return, onReturn(the
// span it returns in) gives the instant, until a span is up through it
// and its slack. ok is false when
// the detector is not up long enough again. Its life is known up to now
// (every event at or before it read), or whole when final: known is false
// when that does not settle the answer yet, which is then after now (a
// span that starts or ends later decides it).
func (l life) owed(from time.Time, wait, slack time.Duration, onReturn func(upSpan) time.Time, now time.Time, final bool) (due time.Time, ok, known bool) {
	// through tells whether s is up past due, and whether that is known.
	through := func(s upSpan, due time.Time) (up, known bool) {
		switch {
		case !s.to.IsZero():
			return s.through(due), true
		case final || !due.After(now):
			return true, true
		}
		return false, false
	}
	due = from.Add(wait)
	i := l.at(from)
	next := from
	if i >= 0 {
		switch up, known := through(l[i], due.Add(slack)); {
		case !known:
			return time.Time{}, false, false
		case up:
			return due, true, true
		}
		next = l[i].to
	}
	for j := l.after(next); j >= 0 && j < len(l); j++ {
		due = onReturn(l[j])
		switch up, known := through(l[j], due.Add(slack)); {
		case !known:
			return time.Time{}, false, false
		case up:
			return due, true, true
		}
	}
	return time.Time{}, false, final
}
