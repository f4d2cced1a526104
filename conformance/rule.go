// Package conformance judges runs: rules are pure functions over a
// timeline, the runner plays a scenario against chosen subjects in the
// simulator and turns the timeline into report cases. Mechanisms plug in
// through Mechanism (one package per seed under conformance/).
package conformance

import (
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Rule is one checkable statement of a seed.
type Rule struct {
	ID        string // STALE-001
	Section   string // 000 §Proposal ¶2
	Statement string
	Role      string // the role whose subject the rule judges
	// Check judges a timeline covering virtual time up to j.End.
	Check func(j *Judging) Verdict
}

// Verdict is a rule's finding on one timeline.
type Verdict struct {
	Status   reports.Status
	Message  string
	Evidence []timeline.Event
	Measures []reports.Measure
}

// Judging is one timeline as the rules see it: its events, the instant up
// to which it is complete, and what a mechanism derives from the events,
// once for all of its rules (Facts).
type Judging struct {
	Events []timeline.Event
	End    time.Time
	facts  map[any]any
}

// NewJudging prepares a timeline for the rules.
func NewJudging(events []timeline.Event, end time.Time) *Judging {
	return &Judging{Events: events, End: end, facts: map[any]any{}}
}

// Facts returns what derive makes of j's events, deriving it on the first
// call for key and sharing it with every later rule: a mechanism reads its
// timeline once, however many rules it has. Rules run one after another
// and must not change what they are given.
func Facts[T any](j *Judging, key any, derive func([]timeline.Event) T) T {
	if v, ok := j.facts[key]; ok {
		return v.(T)
	}
	v := derive(j.Events)
	j.facts[key] = v
	return v
}

// Judge applies rules to a timeline.
func Judge(rules []Rule, events []timeline.Event, end time.Time) []reports.Case {
	j := NewJudging(events, end)
	out := make([]reports.Case, 0, len(rules))
	for _, r := range rules {
		v := r.Check(j)
		out = append(out, reports.Case{
			Rule: r.ID, Section: r.Section, Statement: r.Statement, Role: r.Role,
			Status: v.Status, Message: v.Message, Evidence: v.Evidence, Measures: v.Measures,
		})
	}
	return out
}
