package conformance

import (
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
)

// Rulebook is what judges the mechanism's timelines one event at a time
// (judge.Stream): its rules, their online facts, and the mechanism with
// slack (WithTolerance) for a recording's lag.
func (m *Mechanism) Rulebook() judge.Rulebook {
	b := judge.Rulebook{Rules: m.Rules, Online: m.Online}
	if m.WithTolerance != nil {
		b.Tolerant = func(d time.Duration) judge.Rulebook { return m.WithTolerance(d).Rulebook() }
	}
	return b
}

// Judged is the mechanism as record.Judge judges a recording of it.
func (m *Mechanism) Judged() record.Judged {
	return record.Judged{Mechanism: m.Name, Reaction: m.Reaction, Book: m.Rulebook(), Recording: m.Recording}
}
