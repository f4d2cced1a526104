package conformance

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Downtimes are the spans each actor of a timeline was down, from its
// Process events (Note each one in order), for rules that owe an actor
// nothing while it is down.
type Downtimes map[string][]downSpan

// downSpan is a time a process was down, from its kill or hang (zero: the
// start of the run) to its start or reconnect (zero while still down).
type downSpan struct{ from, to time.Time }

// Note takes in one Process event (Object.Name the actor).
func (p Downtimes) Note(e timeline.Event) {
	actor := e.Object.Name
	spans, seen := p[actor]
	open := len(spans) > 0 && spans[len(spans)-1].to.IsZero()
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang:
		if !open {
			spans = append(spans, downSpan{from: e.Time})
		}
	case timeline.VerbStart, timeline.VerbReconnect:
		switch {
		case open:
			spans[len(spans)-1].to = e.Time
		case !seen:
			spans = append(spans, downSpan{to: e.Time}) // not running before its first start
		}
	}
	p[actor] = spans
}

// Owed is when actor owes its reaction to a change at from: from plus
// tol, or, if it was down in between, its next start plus tol; false if
// it never started again.
func (p Downtimes) Owed(actor string, from time.Time, tol time.Duration) (time.Time, bool) {
	owed := from.Add(tol)
	for _, s := range p[actor] {
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
