package judge

import (
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Rule is one checkable statement of a seed.
type Rule struct {
	ID      string // STALE-001
	Section string // 000 §Proposal ¶2
	// Statement is what the rule holds the subject to, in one sentence.
	Statement string
	Role      string // the role whose subject the rule judges
	// Check judges a timeline covering virtual time up to j.End.
	Check func(j *Judging) Verdict
	// Style marks a convention rule (how a message reads, not what a
	// component does): its failures are warnings (reports.Warn) unless
	// the judging is strict (Judging.Strict).
	Style bool
}

// Class says how binding the rule is: "MUST" for what the seed requires
// (a failure fails the run), "SHOULD" for what it recommends or shows by
// example (a Style rule: a warning, a failure only under --strict).
func (r Rule) Class() string {
	if r.Style {
		return "SHOULD"
	}
	return "MUST"
}

// Verdict is a rule's finding on one timeline.
type Verdict struct {
	// Status is the rule's result: pass, fail, warn or skip (nothing to judge).
	Status reports.Status
	// Message says why, for a person.
	Message string
	// Evidence are the events that show it.
	Evidence []timeline.Event
	// Measures are the figures the rule measured (latencies, counts), for the report.
	Measures []reports.Measure
	// Problems, when a rule lists them, are its failures one by one, each
	// with the window of the timeline it judged, so that the failures that
	// fall in a recording gap are not held against the subject while the
	// others still are (gaps.go). A failing verdict without them is judged
	// on the window of its evidence as a whole.
	Problems []Problem
}

// Problem is one failure a rule found: what it says, the events that show
// it, and the window of the timeline it judged (From to To; zero: from its
// first evidence to its last).
type Problem struct {
	// Message says what failed, for a person.
	Message string
	// Evidence are the events that show the failure.
	Evidence []timeline.Event
	// From and To bound the window the rule judged (zero: first to last evidence).
	From, To time.Time
}

// Judging is one timeline as the rules see it: its events, the instant up
// to which it is complete, and what a mechanism derives from the events,
// once for all of its rules (Facts).
type Judging struct {
	// Events are the timeline's events, in order.
	Events []timeline.Event
	// End is the instant up to which the timeline is complete.
	End time.Time
	// Start is the instant evidence offsets count from: the simulator's
	// epoch for a simulated run, the recording's start for a live one.
	Start time.Time
	// Gaps are the spans a recording could not see (gaps.go).
	Gaps []Gap
	// Strict makes the failures of convention rules (Rule.Style) count
	// as failures (opcert's --strict); otherwise they are warnings.
	Strict bool
	facts  map[any]any
}

// NewJudging prepares a timeline for the rules, offsets counted from the
// simulator's epoch.
func NewJudging(events []timeline.Event, end time.Time) *Judging {
	return &Judging{Events: events, End: end, Start: timeline.Epoch, Gaps: Gaps(events, end), facts: map[any]any{}}
}

// Offset writes an instant as an offset from the judging's start, the way
// rules cite instants in their messages: "+10m0s".
func (j *Judging) Offset(t time.Time) string { return OffsetOf(t.Sub(j.Start)) }

// OffsetOf writes d as rules and reports cite instants: "+10m0s", and
// "-354ms" for one before the start (a recorded write stamped a little
// before the recording began), never "+-354ms".
func OffsetOf(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// Facts returns what derive makes of j's events, deriving it on the first
// call for key and sharing it with every later rule: a mechanism reads its
// timeline once, however many rules it has. Rules run one after another
// and must not change what they are given.
//
// A timeline judged as it streams past (Stream) has no Events: the facts
// of a mechanism that reads online (Rulebook.Online) are there already.
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
	return JudgeWith(rules, NewJudging(events, end))
}

// JudgeWith applies rules to a prepared judging. Failures that fall in a
// recording gap become "not judged" (gaps.go); those of a convention rule
// that remain become warnings, unless j is strict. Every caller of
// JudgeWith (Play, Stream) gets the same verdicts this way.
func JudgeWith(rules []Rule, j *Judging) []reports.Case {
	out := make([]reports.Case, 0, len(rules))
	for _, r := range rules {
		v := excuseGaps(r.Check(j), j)
		if v.Status == reports.Fail && r.Style && !j.Strict {
			v.Status = reports.Warn
		}
		out = append(out, reports.Case{
			Rule: r.ID, Section: r.Section, Statement: r.Statement, Role: r.Role,
			Status: v.Status, Message: v.Message, Evidence: v.Evidence, Measures: v.Measures,
		})
	}
	return out
}
