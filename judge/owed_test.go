package judge

import (
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

func TestProcessesOwe(t *testing.T) {
	at := func(m int) time.Time { return timeline.Epoch.Add(time.Duration(m) * time.Minute) }
	ev := func(m int, verb string) timeline.Event {
		return timeline.Event{Time: at(m), Actor: "op", Verb: verb, Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}}
	}
	const (
		start, kill, hang, reconnect = timeline.VerbStart, timeline.VerbKill, timeline.VerbHang, timeline.VerbReconnect
		fault, clear                 = timeline.VerbFault, timeline.VerbClear
	)
	for _, tc := range []struct {
		name   string
		events []timeline.Event
		from   int // the change, in minutes
		owed   int // -1: never
	}{
		{"no events: up", nil, 5, 6},
		{"up throughout", []timeline.Event{ev(0, start)}, 5, 6},
		{"not running before its first start", []timeline.Event{ev(10, start)}, 5, 11},
		{"dead from the change on", []timeline.Event{ev(0, start), ev(4, kill)}, 5, -1},
		{"dead, then started", []timeline.Event{ev(0, start), ev(4, kill), ev(8, start)}, 5, 9},
		{"hung, then reconnected", []timeline.Event{ev(0, start), ev(5, hang), ev(7, reconnect)}, 5, 8},
		{"down after the reaction was owed", []timeline.Event{ev(0, start), ev(7, kill), ev(9, start)}, 5, 6},
		// Its retry comes as long after the clear as the fault lasted, at most.
		{"under a fault, then cleared", []timeline.Event{ev(0, start), ev(3, fault), ev(10, clear)}, 5, 18},
		{"under a fault to the end", []timeline.Event{ev(0, start), ev(3, fault)}, 5, -1},
		{"a fault before the change", []timeline.Event{ev(0, start), ev(1, fault), ev(2, clear)}, 5, 6},
		// Up again only once both are over, whichever ends first.
		{"killed during a fault, restarted before its clear", []timeline.Event{ev(0, start), ev(3, fault), ev(4, kill), ev(6, start), ev(12, clear)}, 5, 22},
		{"a fault while dead, cleared before its start", []timeline.Event{ev(0, start), ev(4, kill), ev(5, fault), ev(6, clear), ev(9, start)}, 5, 10},
		{"a fault clears and it dies", []timeline.Event{ev(0, start), ev(4, fault), ev(6, clear), ev(6, kill)}, 5, -1},
	} {
		d := Processes{}
		for pos, e := range tc.events {
			d.Note(e, pos)
		}
		owed, ok := d.Owed("op", at(tc.from), time.Minute)
		switch {
		case tc.owed < 0 && ok:
			t.Errorf("%s: owed at +%v, want never", tc.name, owed.Sub(timeline.Epoch))
		case tc.owed >= 0 && (!ok || !owed.Equal(at(tc.owed))):
			t.Errorf("%s: owed at +%v (%v), want +%v", tc.name, owed.Sub(timeline.Epoch), ok, at(tc.owed).Sub(timeline.Epoch))
		}
	}
}

// Reflects is Owed's inverse: a write at an instant may reflect any state
// since the earliest change not owed yet then.
func TestProcessesReflect(t *testing.T) {
	at := func(m int) time.Time { return timeline.Epoch.Add(time.Duration(m) * time.Minute) }
	ev := func(m int, verb string) timeline.Event {
		return timeline.Event{Time: at(m), Actor: "op", Verb: verb, Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}}
	}
	const start, kill, fault, clear = timeline.VerbStart, timeline.VerbKill, timeline.VerbFault, timeline.VerbClear
	for _, tc := range []struct {
		name   string
		events []timeline.Event
		write  int // the write, in minutes
		since  int
	}{
		{"no events: the bound before", nil, 10, 9},
		{"up throughout", []timeline.Event{ev(0, start)}, 10, 9},
		{"a fault long before", []timeline.Event{ev(0, start), ev(2, fault), ev(4, clear)}, 10, 9},
		{"within the bound after a fault", []timeline.Event{ev(0, start), ev(3, fault), ev(5, clear)}, 5, 2},
		{"a fault still on", []timeline.Event{ev(0, start), ev(3, fault)}, 10, 2},
		{"dead, then started", []timeline.Event{ev(0, start), ev(4, kill), ev(8, start)}, 9, 3},
		// Chained as Owed chains them: a change at 1 is owed at 9.
		{"two spans within the bound of each other", []timeline.Event{ev(0, start), ev(2, fault), ev(4, clear), ev(5, kill), ev(8, start)}, 9, 1},
		{"a fault whose retry is not over", []timeline.Event{ev(0, start), ev(2, fault), ev(4, clear)}, 6, 1},
		{"a span after the write does not count", []timeline.Event{ev(0, start), ev(10, fault), ev(12, clear)}, 10, 9},
	} {
		d := Processes{}
		for pos, e := range tc.events {
			d.Note(e, pos)
		}
		since := d.Reflects("op", at(tc.write), time.Minute)
		if !since.Equal(at(tc.since)) {
			t.Errorf("%s: reflects since +%v, want +%v", tc.name, since.Sub(timeline.Epoch), at(tc.since).Sub(timeline.Epoch))
		}
		// Nothing since it is owed by the write; the instant before it is.
		if owed, ok := d.Owed("op", since, time.Minute); ok && owed.Before(at(tc.write)) {
			t.Errorf("%s: a change at +%v owed at +%v, before the write", tc.name, since.Sub(timeline.Epoch), owed.Sub(timeline.Epoch))
		}
	}
}
