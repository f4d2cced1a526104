package judge

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Judger is a mechanism's rules judging a timeline as its events pass:
// what it keeps is what they have found and what they still wait for,
// not the events.
type Judger interface {
	Read(e timeline.Event)
}

// JudgedOnline is the Online facts of rules that judge as the events
// pass once they know where offsets count from: a stream whose tolerance
// was given ahead (Stream.Tolerate, then Streaming) reads into a Judger
// from open; any other keeps the events, for Judged to fold at the end.
func JudgedOnline[J Judger](key any, open func(start time.Time) J) Online {
	return Online{Key: key, New: func() Reader { return &judgedReader[J]{open: open} }}
}

// judgedReader is JudgedOnline's.
type judgedReader[J Judger] struct {
	open    func(time.Time) J
	judged  J
	started bool
	start   time.Time
	events  []timeline.Event
}

// Streaming starts judging as the events pass.
func (r *judgedReader[J]) Streaming(start time.Time) {
	r.judged, r.started, r.start = r.open(start), true, start
}

func (r *judgedReader[J]) Read(e timeline.Event) {
	if r.started {
		r.judged.Read(e)
		return
	}
	r.events = append(r.events, e)
}

func (r *judgedReader[J]) Facts() any { return r }

// Judged is the Judger of the rules that judge j, derived once under
// cache (a key of the rules and their configuration): the one their
// stream's reader (under key, JudgedOnline) made as the events passed,
// if same says it judged with these rules from j's start, or else a new
// one from open with j's events read through it.
func Judged[J Judger](j *Judging, key, cache any, open func(start time.Time) J, same func(J) bool) J {
	return Facts(j, cache, func(events []timeline.Event) J {
		if r, ok := j.facts[key].(*judgedReader[J]); ok {
			if r.started && r.start.Equal(j.Start) && same(r.judged) {
				return r.judged
			}
			events = r.events
		}
		g := open(j.Start)
		for _, e := range events {
			g.Read(e)
		}
		return g
	})
}
