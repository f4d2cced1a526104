package judge

import (
	"slices"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Processes holds, for each process of a timeline, when it was down and
// when its API calls failed, from its process events (Note each in order,
// with its position): the one record of down time every mechanism's rules
// read. Down is killed or cut off (a kill or hang, to a start or
// reconnect), or not yet started; faulted is under an API fault (a fault,
// to its clear). Rules that ask whether a process could act read its down
// spans (DownDuring and the others); rules that owe it nothing while it
// could neither see a change nor write its answer read both (Owed,
// Unreachable).
type Processes map[string]*Life

// Life is one process's record.
type Life struct {
	Downs  []Down // killed, cut off or not yet started
	Faults []Down // under an API fault (Stop the fault, Up its clear)
}

// Down is a time a process was down (or faulted), from its kill or hang
// (zero, and position -1: the start of the run) to its start or reconnect
// (zero while still down), with the positions of those events on the
// timeline, which order what happens at one instant, and the events
// themselves (zero for none).
type Down struct {
	// From is when the process went down, To when it came back (zero: still down).
	From, To time.Time
	// FromPos and ToPos are those events' positions on the timeline (-1: the run's start).
	FromPos, ToPos int
	// Stop and Up are the events themselves (zero for none).
	Stop, Up timeline.Event
}

func (d Down) open() bool { return d.To.IsZero() }

// Note takes in one process event (Object.Name the actor) at position pos.
func (p Processes) Note(e timeline.Event, pos int) {
	actor := e.Object.Name
	l, seen := p[actor]
	if !seen {
		l = &Life{}
		p[actor] = l
	}
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang:
		l.Downs = begin(l.Downs, e, pos)
	case timeline.VerbStart, timeline.VerbReconnect:
		if !seen {
			// Not running before its first start.
			l.Downs = append(l.Downs, Down{FromPos: -1})
		}
		end(l.Downs, e, pos)
	case timeline.VerbFault:
		l.Faults = begin(l.Faults, e, pos)
	case timeline.VerbClear:
		end(l.Faults, e, pos)
	}
}

// begin opens a span at e unless one is open.
func begin(spans []Down, e timeline.Event, pos int) []Down {
	if len(spans) > 0 && spans[len(spans)-1].open() {
		return spans
	}
	return append(spans, Down{From: e.Time, FromPos: pos, Stop: e})
}

// end closes the open span, if any, at e.
func end(spans []Down, e timeline.Event, pos int) {
	if len(spans) > 0 && spans[len(spans)-1].open() {
		last := &spans[len(spans)-1]
		last.To, last.ToPos, last.Up = e.Time, pos, e
	}
}

// Downs are actor's down spans, in order.
func (p Processes) Downs(actor string) []Down {
	if l := p[actor]; l != nil {
		return l.Downs
	}
	return nil
}

// DownDuring tells whether actor was down at any instant of [from, to].
func (p Processes) DownDuring(actor string, from, to time.Time) bool {
	return during(p.Downs(actor), from, to)
}

// Unreachable tells whether actor was down or under an API fault at any
// instant of [from, to]: it could not have seen a change or written its
// answer throughout.
func (p Processes) Unreachable(actor string, from, to time.Time) bool {
	l := p[actor]
	return l != nil && (during(l.Downs, from, to) || during(l.Faults, from, to))
}

func during(spans []Down, from, to time.Time) bool {
	for _, s := range spans {
		if !s.From.After(to) && (s.open() || s.To.After(from)) {
			return true
		}
	}
	return false
}

// DownThroughout tells whether actor was down at every instant of [from,
// to), or at the instant from when to is not after it.
func (p Processes) DownThroughout(actor string, from, to time.Time) bool {
	for _, s := range p.Downs(actor) {
		if s.From.After(from) {
			continue
		}
		if s.open() || s.To.After(from) && !s.To.Before(to) {
			return true
		}
	}
	return false
}

// DownAfter tells whether actor was down just after the event at pos:
// killed or cut off at or before it and not back by it, or not started
// yet.
func (p Processes) DownAfter(actor string, pos int) bool {
	for _, s := range p.Downs(actor) {
		if s.FromPos <= pos && (s.open() || s.ToPos > pos) {
			return true
		}
	}
	return false
}

// DownBetween tells whether actor was down all the while between the
// timeline's positions from and to: killed before the event at from and
// not back before the event at to.
func (p Processes) DownBetween(actor string, from, to int) bool {
	for _, s := range p.Downs(actor) {
		if s.FromPos < from && (s.open() || s.ToPos > to) {
			return true
		}
	}
	return false
}

// Owed is when actor owes its reaction to a change at from: from plus
// tol, or, if it was down or under an API fault in between, when it was
// next up with its calls answered plus tol, and plus the time its calls
// failed after an API fault (its retries back off: retried); false if it
// never was.
func (p Processes) Owed(actor string, from time.Time, tol time.Duration) (time.Time, bool) {
	owed := from.Add(tol)
	l := p[actor]
	if l == nil {
		return owed, true
	}
	for _, s := range merged(l) {
		if !s.From.IsZero() && s.From.After(owed) {
			break
		}
		if s.open() {
			return time.Time{}, false
		}
		if s.To.Before(from) {
			continue
		}
		owed = s.To.Add(retried(l, s) + tol)
	}
	return owed, true
}

// retried is how long after the span s of l a reconciler may first retry
// a call that failed in it: as long as the fault that ends the span
// lasted, since the simulator's per-item backoff (controller-runtime's)
// doubles from 5ms, so that the retry after a fault of W comes about W
// after its clear at most; nothing when a start or reconnect ends it (the
// process reads everything anew). Faults holds the perturbations' view
// windows too, after which a relist or the late notifications come
// sooner: the allowance is then more than they need.
func retried(l *Life, s Down) time.Duration {
	var d time.Duration
	for _, f := range l.Faults {
		if !f.open() && !f.From.Before(s.From) && f.To.Equal(s.To) {
			d = max(d, f.To.Sub(f.From))
		}
	}
	return d
}

// Reflects is the earliest instant whose state a write of actor's at at
// may still reflect: a change after it is not owed yet (Owed is at or
// after at). That is at minus tol, or, if actor was down or under an API
// fault within tol before at (or before the start of such a span, and so
// on), tol before the earliest such span began: a reconcile that resumes
// after the span writes its objects one by one, each reflecting the state
// it read when it could.
func (p Processes) Reflects(actor string, at time.Time, tol time.Duration) time.Time {
	since := at.Add(-tol)
	l := p[actor]
	if l == nil {
		return since
	}
	spans := merged(l)
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		if !s.open() && s.To.Add(retried(l, s)).Before(since) {
			break
		}
		if s.From.After(at) {
			continue
		}
		since = earliest(since, s.From.Add(-tol))
	}
	return since
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// merged are the times actor was down or faulted, as spans in order that
// neither overlap nor touch.
func merged(l *Life) []Down {
	all := slices.Concat(l.Downs, l.Faults)
	slices.SortStableFunc(all, func(a, b Down) int { return a.From.Compare(b.From) })
	var out []Down
	for _, s := range all {
		if n := len(out); n > 0 && (out[n-1].open() || !s.From.After(out[n-1].To)) {
			if !out[n-1].open() && (s.open() || s.To.After(out[n-1].To)) {
				out[n-1].To = s.To
			}
			continue
		}
		out = append(out, s)
	}
	return out
}
