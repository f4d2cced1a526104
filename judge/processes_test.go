package judge

import (
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// A process is down from its kill or hang to its next start or
// reconnect, and before its first start; a second kill while down opens
// nothing new.
func TestProcesses(t *testing.T) {
	at := func(m int) time.Time { return timeline.Epoch.Add(time.Duration(m) * time.Minute) }
	ev := func(m int, verb string) timeline.Event {
		return timeline.Event{Time: at(m), Verb: verb, Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}}
	}
	p := Processes{}
	for pos, e := range []timeline.Event{ev(1, timeline.VerbStart), ev(10, timeline.VerbKill), ev(12, timeline.VerbHang),
		ev(15, timeline.VerbStart), ev(30, timeline.VerbHang)} {
		p.Note(e, pos)
	}
	for _, tc := range []struct {
		name      string
		got, want bool
	}{
		{"down before its first start", p.DownDuring("op", at(0), at(0)), true},
		{"up between start and kill", p.DownDuring("op", at(2), at(9)), false},
		{"down over the kill", p.DownDuring("op", at(9), at(11)), true},
		{"down throughout kill to start", p.DownThroughout("op", at(10), at(15)), true},
		{"not down throughout past the start", p.DownThroughout("op", at(10), at(16)), false},
		{"down after the kill's position", p.DownAfter("op", 1), true},
		{"up after the start's position", p.DownAfter("op", 3), false},
		{"down between the kill and the start", p.DownBetween("op", 2, 2), true},
		{"not down through the start", p.DownBetween("op", 2, 3), false},
		{"still down at the end", p.DownDuring("op", at(40), at(50)), true},
		{"an actor with no process events is up", p.DownDuring("other", at(0), at(50)), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if n := len(p.Downs("op")); n != 3 {
		t.Errorf("%d down spans, want 3 (before the start, kill to start, the last hang)", n)
	}
}

// An API fault is no down time for the down queries, but leaves the
// process unreachable, and a fault before the first start does not
// count as having started.
func TestProcessesFaults(t *testing.T) {
	at := func(m int) time.Time { return timeline.Epoch.Add(time.Duration(m) * time.Minute) }
	ev := func(m int, verb string) timeline.Event {
		return timeline.Event{Time: at(m), Verb: verb, Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}}
	}
	p := Processes{}
	for pos, e := range []timeline.Event{ev(0, timeline.VerbFault), ev(2, timeline.VerbClear), ev(5, timeline.VerbFault), ev(8, timeline.VerbClear), ev(9, timeline.VerbStart)} {
		p.Note(e, pos)
	}
	for _, tc := range []struct {
		name      string
		got, want bool
	}{
		{"a fault first is no down time before the start", p.DownDuring("op", at(0), at(9)), false},
		{"unreachable under the fault", p.Unreachable("op", at(6), at(7)), true},
		{"reachable between the faults", p.Unreachable("op", at(3), at(4)), false},
		{"reachable after the clear", p.Unreachable("op", at(10), at(20)), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if n := len(p["op"].Faults); n != 2 {
		t.Errorf("%d fault spans, want 2", n)
	}
}
