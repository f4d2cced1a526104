package conformance

import (
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
)

// Rulebook is what judges m's timelines one event at a time
// (judge.Stream): its rules, their online facts (Streaming), and m with
// slack (Tolerant) for a recording's lag.
func Rulebook(m Mechanism) judge.Rulebook {
	b := judge.Rulebook{Rules: m.Rules()}
	if s, ok := m.(Streaming); ok {
		b.Online = s.Online()
	}
	if t, ok := m.(Tolerant); ok {
		b.Tolerant = func(d time.Duration) judge.Rulebook { return Rulebook(t.WithTolerance(d)) }
	}
	return b
}

// Judged is m as record.Judge judges a recording of it.
func Judged(m Mechanism) record.Judged {
	return record.Judged{Mechanism: m.Name(), Reaction: ReactionOf(m), Book: Rulebook(m), Recording: RecordingOf(m)}
}

// ReactionOf is m's reaction bound (Reactive), zero when it judges no
// reaction.
func ReactionOf(m Mechanism) time.Duration {
	if r, ok := m.(Reactive); ok {
		return r.Reaction()
	}
	return 0
}

// RecordingOf is what a watch records of m (Recordable), nil when m
// cannot be recorded.
func RecordingOf(m Mechanism) *record.Recording {
	if r, ok := m.(Recordable); ok {
		return r.Recording()
	}
	return nil
}
