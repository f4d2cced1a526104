package reports

import (
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

func TestMarkOf(t *testing.T) {
	proc := timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}
	later := timeline.Epoch.Add(time.Minute)
	for _, tc := range []struct {
		name string
		e    timeline.Event
		want string
	}{
		{"kill", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbKill, Object: proc}, markFault},
		{"hang", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbHang, Object: proc}, markFault},
		{"API fault", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbFault, Object: proc}, markFault},
		{"its clear", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbClear, Object: proc}, ""},
		{"a crash", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbKill, Object: proc, Detail: timeline.PerturbationDetail + "crash after write 2"}, markPert},
		{"a perturbed view", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbFault, Object: proc, Detail: timeline.PerturbationDetail + "notifications lost"}, markPert},
		{"its end", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbClear, Object: proc, Detail: timeline.PerturbationDetail + "notifications lost"}, ""},
		{"start", timeline.Event{Time: later, Actor: "op", Verb: timeline.VerbStart, Object: proc}, ""},
		{"failed expectation", timeline.Event{Time: later, Actor: "scenario", Role: "scenario", Verb: timeline.VerbExpect, Failed: true}, markFault},
		{"a step", timeline.Event{Time: later, Actor: "scenario", Role: "scenario", Verb: timeline.VerbCreate}, markStep},
		{"the world at the start", timeline.Event{Time: timeline.Epoch, Actor: "scenario", Role: "scenario", Verb: timeline.VerbCreate}, ""},
	} {
		if got := markOf(tc.e, timeline.Epoch); got != tc.want {
			t.Errorf("%s: marked %q, want %q", tc.name, got, tc.want)
		}
	}
}
