package judge

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Processes holds when each process of a timeline was down, from its
// process events (Note each in order, with its position): killed or cut
// off (a kill or hang, to a start or reconnect), or not yet started. An
// API fault is not down time here: a rule that excuses an actor under one
// reads Downtimes.
type Processes map[string][]Down

// Down is a time a process was down, from its kill or hang (zero, and
// position -1: the start of the run) to its start or reconnect (zero while
// still down), with the positions of those events on the timeline, which
// order what happens at one instant, and the events themselves (zero for
// none).
type Down struct {
	From, To       time.Time
	FromPos, ToPos int
	Stop, Up       timeline.Event
}

// Note takes in one process event (Object.Name the actor) at position pos.
func (p Processes) Note(e timeline.Event, pos int) {
	actor := e.Object.Name
	spans, seen := p[actor]
	open := len(spans) > 0 && spans[len(spans)-1].To.IsZero()
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang:
		if !open {
			spans = append(spans, Down{From: e.Time, FromPos: pos, Stop: e})
		}
	case timeline.VerbStart, timeline.VerbReconnect:
		switch {
		case open:
			last := &spans[len(spans)-1]
			last.To, last.ToPos, last.Up = e.Time, pos, e
		case !seen:
			spans = append(spans, Down{To: e.Time, FromPos: -1, ToPos: pos, Up: e}) // not running before its first start
		}
	}
	p[actor] = spans
}

// DownDuring tells whether actor was down at any instant of [from, to].
func (p Processes) DownDuring(actor string, from, to time.Time) bool {
	for _, s := range p[actor] {
		if !s.From.After(to) && (s.To.IsZero() || s.To.After(from)) {
			return true
		}
	}
	return false
}

// DownThroughout tells whether actor was down at every instant of [from,
// to), or at the instant from when to is not after it.
func (p Processes) DownThroughout(actor string, from, to time.Time) bool {
	for _, s := range p[actor] {
		if s.From.After(from) {
			continue
		}
		if s.To.IsZero() || s.To.After(from) && !s.To.Before(to) {
			return true
		}
	}
	return false
}

// DownAfter tells whether actor was down just after the event at pos:
// killed or cut off at or before it and not back by it, or not started
// yet.
func (p Processes) DownAfter(actor string, pos int) bool {
	for _, s := range p[actor] {
		if s.FromPos <= pos && (s.To.IsZero() || s.ToPos > pos) {
			return true
		}
	}
	return false
}

// DownBetween tells whether actor was down all the while between the
// timeline's positions from and to: killed before the event at from and
// not back before the event at to.
func (p Processes) DownBetween(actor string, from, to int) bool {
	for _, s := range p[actor] {
		if s.FromPos < from && (s.To.IsZero() || s.ToPos > to) {
			return true
		}
	}
	return false
}
