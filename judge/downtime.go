package judge

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Downtimes are the spans each actor of a timeline was down, from its
// Process events (Note each one in order), for rules that owe an actor
// nothing while it is down: dead or cut off (from a kill or hang to a
// start or reconnect), or under an API fault (from a fault to its clear:
// its reads or its writes failed, so it could neither see a change nor
// write its answer).
type Downtimes map[string]*life

// life is one actor's state and its down spans.
type life struct {
	spans         []downSpan
	dead, faulted bool
}

func (l *life) down() bool { return l.dead || l.faulted }

// downSpan is a time a process was down, from when it went down (zero:
// the start of the run) to when it was up again (zero while still down).
type downSpan struct{ from, to time.Time }

// Note takes in one Process event (Object.Name the actor).
func (p Downtimes) Note(e timeline.Event) {
	actor := e.Object.Name
	l := p[actor]
	if l == nil {
		l = &life{}
		p[actor] = l
		if e.Verb == timeline.VerbStart || e.Verb == timeline.VerbReconnect {
			// Not running before its first start.
			l.dead, l.spans = true, []downSpan{{}}
		}
	}
	was := l.down()
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang:
		l.dead = true
	case timeline.VerbStart, timeline.VerbReconnect:
		l.dead = false
	case timeline.VerbFault:
		l.faulted = true
	case timeline.VerbClear:
		l.faulted = false
	}
	switch now := l.down(); {
	case !was && now:
		l.spans = append(l.spans, downSpan{from: e.Time})
	case was && !now:
		l.spans[len(l.spans)-1].to = e.Time
	}
}

// Owed is when actor owes its reaction to a change at from: from plus
// tol, or, if it was down in between, when it was next up (started,
// reconnected, its fault cleared) plus tol; false if it never was.
func (p Downtimes) Owed(actor string, from time.Time, tol time.Duration) (time.Time, bool) {
	owed := from.Add(tol)
	l := p[actor]
	if l == nil {
		return owed, true
	}
	for _, s := range l.spans {
		if !s.from.IsZero() && s.from.After(owed) {
			break
		}
		if s.to.IsZero() {
			return time.Time{}, false
		}
		if s.to.Before(from) {
			continue
		}
		owed = s.to.Add(tol)
	}
	return owed, true
}
