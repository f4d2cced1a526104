package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// "Within one reconcile", the timing every state rule uses (doc.go,
// Readings): between two changes of what a subject reads, what it should
// write is fixed. Each such interval longer than the tolerance is judged
// at its start plus the tolerance (with none, at the interval's first
// instant once every event of that instant has happened: quiescence in
// virtual time), and at every write of the output after that and before
// the next change.
//
// A watcher judges one output as the events pass: it keeps the intervals
// whose deadline has not come (one, unless the subject is down), the
// last write of the output, what it found and the reactions it measured;
// nothing of the events before.

// watch is one output of one subject.
type watch struct {
	// actor is the subject's process: while it is down its outputs are
	// not judged, until it starts again plus the tolerance.
	actor string
	// input tells whether e, which moved the world from was to now,
	// changes what the output should be (including someone else's write
	// of the output).
	input func(e timeline.Event, was, now *world) bool
	// output tells whether e is the subject's write of the output.
	output func(e timeline.Event) bool
	// check compares the output to what it should be in w: what differs
	// ("" when nothing does), and whether there was anything to judge.
	check func(w *world) (problem string, judged bool)
}

// interval is a change of a watched output's inputs, from its first
// instant until the next change (closed) or on.
type interval struct {
	from   time.Time
	first  int // the position of its first input among the world's events
	cause  timeline.Event
	next   time.Time
	closed bool
	// n is how many closed intervals it stands for: those judged while the
	// subject's first start was not seen, which that start, once seen,
	// leaves all not judged alike (the first one's reason shown).
	n int
}

// watcher judges one watch.
type watcher struct {
	w    watch
	rec  judge.Tally
	took judge.Latencies
	// queue are the intervals whose deadline has not been judged, in order;
	// the last one may be open.
	queue []interval
	// last is the instant of the last change, once started.
	last    time.Time
	started bool
	// watching is the open interval judged at its deadline, whose output
	// writes are judged until the next change (nil: none, or one failed).
	watching *interval
	out      *timeline.Event // the subject's last write of the output
	outPos   int
	// early are the intervals judged while the subject was not seen: if
	// its first process event starts it, it was down until then
	// (judge.Processes) and they are judged again.
	early       interval // the closed ones, as one (n 0: none)
	earlyOpen   *interval
	judgedEarly bool
}

func newWatcher(w watch) *watcher { return &watcher{w: w} }

// clone is a copy of x judging w: a subject's new object picks up what
// the watch of no object found so far (prototypes).
func (x *watcher) clone(w watch) *watcher {
	c := *x
	c.w = w
	c.rec = x.rec.Clone()
	c.queue = append([]interval(nil), x.queue...)
	if x.watching != nil {
		iv := *x.watching
		c.watching = &iv
	}
	if x.earlyOpen != nil {
		iv := *x.earlyOpen
		c.earlyOpen = &iv
	}
	return &c
}

// step reads e, which moved the world from was to now, at position pos.
func (x *watcher) step(g *olmJudging, e timeline.Event, pos int, was, now *world) {
	started := false
	if x.w.input(e, was, now) {
		if !x.started || !e.Time.Equal(x.last) {
			x.begin(g, e, pos)
			started = true
		} else if n := len(x.queue); n > 0 && !x.queue[n-1].closed && x.queue[n-1].from.Equal(e.Time) {
			x.queue[n-1].cause = e
		}
	}
	if !x.w.output(e) {
		return
	}
	out := e
	x.out, x.outPos = &out, pos
	if x.watching == nil || started {
		return
	}
	if problem, _ := x.w.check(now); problem != "" {
		from := x.watching.from
		x.rec.FailIn(fmt.Sprintf("%s (write at %s, after the change at %s)", problem, g.off(e.Time), g.off(from)),
			from, e.Time, x.watching.cause, e)
		x.watching = nil
	}
}

// begin starts a new interval at e, closing the one before.
func (x *watcher) begin(g *olmJudging, e timeline.Event, pos int) {
	if n := len(x.queue); n > 0 && !x.queue[n-1].closed {
		iv := &x.queue[n-1]
		iv.closed, iv.next = true, e.Time
		if a := g.c.allowance(); a > 0 && e.Time.Sub(iv.from) <= a {
			x.queue = x.queue[:n-1] // shorter than the tolerance: not judged
		}
	}
	if x.earlyOpen != nil {
		x.earlyOpen.closed, x.earlyOpen.next = true, e.Time
		x.addEarly(*x.earlyOpen)
		x.earlyOpen = nil
	}
	x.watching = nil
	x.queue = append(x.queue, interval{from: e.Time, first: pos, cause: e, n: 1})
	x.started, x.last = true, e.Time
}

func (x *watcher) addEarly(iv interval) {
	if x.early.n == 0 {
		x.early = iv
		return
	}
	x.early.n += iv.n
	x.early.next = iv.next
}

// seen is the subject's first process event: one that starts it says it
// was down until then, so what was judged before is judged again.
func (x *watcher) seen(start bool) {
	if !start || !x.judgedEarly {
		x.early, x.earlyOpen, x.judgedEarly = interval{}, nil, false
		return
	}
	var q []interval
	if x.early.n > 0 {
		q = append(q, x.early)
	}
	if x.earlyOpen != nil {
		q = append(q, *x.earlyOpen)
	}
	x.queue = append(q, x.queue...)
	x.rec, x.took, x.watching = judge.Tally{}, judge.Latencies{}, nil
	x.early, x.earlyOpen, x.judgedEarly = interval{}, nil, false
}

// settle judges the intervals whose deadline has passed by now; final
// judges them all, the timeline ending at g.end.
func (x *watcher) settle(g *olmJudging, now time.Time, final bool) {
	a := g.c.allowance()
	for len(x.queue) > 0 {
		iv := x.queue[0]
		owed, ok := g.procs.Owed(x.w.actor, iv.from, a)
		if !final && (!ok || !now.After(owed)) {
			return
		}
		x.queue = x.queue[1:]
		if len(x.queue) == 0 {
			x.queue = nil
		}
		early := !final && g.procs[x.w.actor] == nil
		if early {
			x.judgedEarly = true
			if iv.closed {
				x.addEarly(iv)
			} else {
				open := iv
				x.earlyOpen = &open
			}
		}
		next := iv.next
		if !iv.closed && final {
			if next = g.end; a > 0 && next.Sub(iv.from) <= a {
				continue
			}
		}
		switch {
		case !ok:
			x.rec.SkipN(fmt.Sprintf("%s down from %s", x.w.actor, g.off(iv.from)), iv.n)
		case g.ends && owed.After(g.end):
			x.rec.SkipN(fmt.Sprintf("the run ended before %s, when the change at %s was owed", g.off(owed), g.off(iv.from)), iv.n)
		case owed.After(iv.from) && (iv.closed || final) && !owed.Before(next):
			x.rec.SkipN(fmt.Sprintf("%s came back after the change at %s only once the next one was made", x.w.actor, g.off(iv.from)), iv.n)
		default:
			x.judge(g, iv, owed)
		}
	}
}

// judge judges interval iv at its deadline owed, the world as it stands.
func (x *watcher) judge(g *olmJudging, iv interval, owed time.Time) {
	problem, judged := x.w.check(g.w)
	if !judged {
		return
	}
	x.rec.Judged++
	if problem != "" {
		ev := []timeline.Event{iv.cause}
		if x.out != nil {
			ev = append(ev, *x.out)
		}
		x.rec.FailIn(fmt.Sprintf("%s (at %s, after the change at %s)", problem, g.off(owed), g.off(iv.from)), iv.from, owed, ev...)
		return
	}
	reaction := time.Duration(0)
	if x.out != nil && x.outPos >= iv.first {
		reaction = x.out.Time.Sub(iv.from)
	}
	x.took.Add(reaction)
	if !iv.closed {
		x.watching = &iv
	}
}
